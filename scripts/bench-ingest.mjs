// `npm run bench:ingest`: a 100,000-row batch upload end to end (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/ingest.ts');
