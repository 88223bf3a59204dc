// `npm run bench:records [-- --n 100000 --iterations 20 --budget 30 --warmup 2 --seed 1]`: seeds
// N records and measures list, get, create and every kind of search through the gateway and
// directly against the store (see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { runRecordsBench } from './src/records-bench.ts';
import { formatReport } from './src/report.ts';

const USAGE = `Usage: npm run bench:records -- [--n N] [--iterations I] [--budget S] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured runs of each operation at most (default 20)
  --budget      seconds an operation may take before it stops at the runs it has, at least one (default 30)
  --warmup      uncounted runs of each operation first, while it takes under 1 s (default 2)
  --seed        seed of the generated records and queries (default 1)`;

const { budget, ...counts } = readCounts(USAGE, {
  n: { fallback: 100_000, min: 3, env: 'BENCH_N' },
  iterations: { fallback: 20, min: 1 },
  budget: { fallback: 30, min: 0 },
  warmup: { fallback: 2, min: 0 },
  seed: { fallback: 1, min: 0 },
});

await runBenchCommand('bench:records', async (context) =>
  formatReport(await runRecordsBench({ ...counts, budgetSeconds: budget, ...context })),
);
