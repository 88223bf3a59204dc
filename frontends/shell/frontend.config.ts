import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({ name: 'shell', kind: 'host', title: 'National Risk Assessment Database' });
