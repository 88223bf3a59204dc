// `npm run bench:report`: reports with 100,000 records (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/report.ts');
