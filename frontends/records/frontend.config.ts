import { defineFrontend } from '@nrad/frontend-build';

export default defineFrontend({
  name: 'records',
  kind: 'remote',
  exposes: {
    './AddRecord': './src/AddRecord.tsx',
    './RecordDetails': './src/RecordDetails.tsx',
    './EditRecord': './src/EditRecord.tsx',
    './DeletedRecords': './src/DeletedRecords.tsx',
    './Review': './src/Review.tsx',
  },
});
