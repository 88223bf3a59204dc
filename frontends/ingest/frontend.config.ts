import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({
  name: 'ingest',
  kind: 'remote',
  exposes: { './BatchUpload': './src/BatchUpload.tsx' },
});
