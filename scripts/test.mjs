// `npm test`: every check and test (see README.md).
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('infra/src/cli/test.ts', { announce: true });
