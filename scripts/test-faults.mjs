// `npm run test:faults`: the fault suite at full size (see README.md "Fault suite").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('infra/src/faults/cli.ts');
