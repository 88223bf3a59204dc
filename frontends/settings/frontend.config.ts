import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({
  name: 'settings',
  kind: 'remote',
  exposes: { './Settings': './src/Settings.tsx', './ApiReference': './src/ApiReference.tsx' },
});
