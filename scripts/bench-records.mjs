// `npm run bench:records`: the records benchmark (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/records.ts');
