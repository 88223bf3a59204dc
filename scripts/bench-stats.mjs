// `npm run bench:stats`: the statistics with a large history (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/stats.ts');
