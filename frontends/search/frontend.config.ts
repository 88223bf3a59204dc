import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({ name: 'search', kind: 'remote', exposes: { './Search': './src/Search.tsx' } });
