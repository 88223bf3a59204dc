import { createRoot } from 'react-dom/client';

const element = document.getElementById('root');
if (element) {
  createRoot(element).render(
    <p>
      This is NRAD&apos;s dashboard, loaded by the app at <a href="/dashboard">/dashboard</a>.
    </p>,
  );
}
