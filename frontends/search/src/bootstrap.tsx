import { createRoot } from 'react-dom/client';

const element = document.getElementById('root');
if (element) {
  createRoot(element).render(
    <p>
      This is NRAD&apos;s Search Records screen, loaded by the app at <a href="/search">/search</a>.
    </p>,
  );
}
