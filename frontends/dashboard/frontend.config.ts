import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({ name: 'dashboard', kind: 'remote', exposes: { './Dashboard': './src/Dashboard.tsx' } });
