// `npm run bench:load`: the load test of issue 21, 200 signed-in users for 5 minutes (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/load.ts');
