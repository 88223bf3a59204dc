// `npm run bench:screens [-- --n 3000 --iterations 10 --warmup 2 --seed 1]`: creates N records
// through the gateway, then measures the record screens in Chromium — search (first page, Show
// more, a name with a typo), Record Details with its journey, the NAMLC match check and Deleted
// Records (see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { formatScreensReport, runScreensBench } from './src/screens-bench.ts';

const USAGE = `Usage: npm run bench:screens -- [--n N] [--iterations I] [--warmup W] [--seed X]
  --n           records to create through the gateway, spread over BPS, FIA and CUS (default 3000, or BENCH_N)
  --iterations  measured runs of each screen operation (default 10)
  --warmup      uncounted runs of each operation first (default 2)
  --seed        seed of the generated records (default 1)`;

const options = readCounts(USAGE, {
  n: { fallback: 3000, min: 3, env: 'BENCH_N' },
  iterations: { fallback: 10, min: 1 },
  warmup: { fallback: 2, min: 0 },
  seed: { fallback: 1, min: 0 },
});

await runBenchCommand('bench:screens', async (context) =>
  formatScreensReport(await runScreensBench({ ...options, ...context })),
);
