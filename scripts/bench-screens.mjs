// `npm run bench:screens`: the record screens in Chromium with thousands of records (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/screens.ts');
