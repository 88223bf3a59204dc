// `npm run bench:records [-- --n 100000 --iterations 20 --budget 30 --warmup 2 --seed 1 --restarts 3
// --deleted 2]`: seeds N records (a share of them deleted) and measures list, count, get, create,
// every kind of search, the deleted list, the admin list and a keyset page from the middle through
// the gateway and directly against the store, then the first requests after restarts of the whole
// system (see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { DEFAULT_DELETED_PERCENT, DEFAULT_RESTARTS, runRecordsBench } from './src/records-bench.ts';
import { formatReport } from './src/report.ts';

const USAGE = `Usage: npm run bench:records -- [--n N] [--iterations I] [--budget S] [--warmup W] [--seed X] [--restarts R] [--deleted P]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured runs of each operation at most (default 20)
  --budget      seconds an operation may take before it stops at the runs it has, at least one (default 30);
                also the longest each user's walk to the middle of their list may take
  --warmup      uncounted runs of each operation first, while it takes under 1 s (default 2)
  --seed        seed of the generated records and queries (default 1)
  --restarts    times the whole system is stopped and started again on its data at the end, each timing
                the start, a sign-in and the first GET /api/records (default ${DEFAULT_RESTARTS}; 0: none)
  --deleted     percent of the seeded records that are deleted, drawn per record (default ${DEFAULT_DELETED_PERCENT}; at most 100)`;

const { budget, deleted, ...counts } = readCounts(USAGE, {
  n: { fallback: 100_000, min: 3, env: 'BENCH_N' },
  iterations: { fallback: 20, min: 1 },
  budget: { fallback: 30, min: 0 },
  warmup: { fallback: 2, min: 0 },
  seed: { fallback: 1, min: 0 },
  restarts: { fallback: DEFAULT_RESTARTS, min: 0 },
  deleted: { fallback: DEFAULT_DELETED_PERCENT, min: 0 },
});
if (deleted > 100) {
  console.error(`--deleted must be a percent from 0 to 100 (got "${deleted}")\n\n${USAGE}`);
  process.exit(2);
}

await runBenchCommand('bench:records', async (context) =>
  formatReport(await runRecordsBench({ ...counts, budgetSeconds: budget, deletedPercent: deleted, ...context })),
);
