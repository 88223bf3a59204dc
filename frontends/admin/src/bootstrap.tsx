import { createRoot } from 'react-dom/client';

const element = document.getElementById('root');
if (element) {
  createRoot(element).render(
    <p>
      This is NRAD&apos;s Admin Panel, loaded by the app at <a href="/admin">/admin</a> (ADMIN only).
    </p>,
  );
}
