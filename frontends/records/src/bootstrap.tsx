import { createRoot } from 'react-dom/client';

const element = document.getElementById('root');
if (element) {
  createRoot(element).render(
    <p>
      This is NRAD&apos;s records screens remote, loaded by the app at <a href="/records">/records</a>.
    </p>,
  );
}
