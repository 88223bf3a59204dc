// `npm run bench:quick`: bench:records at 10,000 records against issue 38's ratios (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/quick.ts');
