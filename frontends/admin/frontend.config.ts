import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({
  name: 'admin',
  kind: 'remote',
  exposes: { './Admin': './src/Admin.tsx', './Operations': './src/Operations.tsx' },
});
