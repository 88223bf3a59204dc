// `npm start`: everything up on embedded defaults (see README.md).
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('infra/src/cli/start.ts', { announce: true });
