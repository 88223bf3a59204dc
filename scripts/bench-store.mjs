// `npm run bench:store`: the records collection's inserts on the embedded store, two SQLite versions (see README.md "Benchmarks").
import { runTypeScript } from './bootstrap.mjs';

await runTypeScript('bench/store.ts');
