// `npm run bench:store [-- --n 60000 --rounds 2 --seed 7]`: the records collection's inserts on the
// embedded store alone, our FerretDB build against the same build on the SQLite FerretDB v1.24.2
// was published with, alternately (ADR 0002 item 11; README.md "Benchmarks"). Needs no services.
import { readCounts } from './src/cli.ts';
import { formatStoreReport, runStoreBench } from './src/store-bench.ts';

const USAGE = `Usage: npm run bench:store -- [--n N] [--rounds R] [--seed X]
  --n       records inserted in each run (default 60000, or BENCH_N)
  --rounds  runs of each build, alternated (default 2)
  --seed    seed of the generated records (default 7)`;

const options = readCounts(USAGE, {
  n: { fallback: 60_000, min: 4000, env: 'BENCH_N' },
  rounds: { fallback: 2, min: 1 },
  seed: { fallback: 7, min: 0 },
});

const runs = await runStoreBench({ ...options, log: (line) => console.log(line) });
console.log('');
console.log(formatStoreReport(runs, options));
