// `npm run bench:linking`: the linking benchmark (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/linking.ts');
