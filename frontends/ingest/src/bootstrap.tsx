import { createRoot } from 'react-dom/client';

const element = document.getElementById('root');
if (element) {
  createRoot(element).render(
    <p>
      This is NRAD&apos;s Batch Upload screen, loaded by the app at <a href="/batch-upload">/batch-upload</a>.
    </p>,
  );
}
