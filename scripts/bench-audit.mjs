// `npm run bench:audit`: the audit trail at scale (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/audit.ts');
