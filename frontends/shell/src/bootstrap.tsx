import { createRoot } from 'react-dom/client';
import { Root } from './Root.tsx';

const element = document.getElementById('root');
if (element) createRoot(element).render(<Root />);
