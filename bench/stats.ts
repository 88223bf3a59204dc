// `npm run bench:stats [-- --n 100000 --iterations 30 --warmup 3 --seed 1]`: seeds N records into
// the records collection and the stats service's read model, then measures each stats path and
// the time from a create, edit or delete to the changed figure being readable, through the
// gateway (see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand, SEEDED_LATENCY_COUNTS } from './src/cli.ts';
import { formatStatsReport, runStatsBench } from './src/stats-bench.ts';

const USAGE = `Usage: npm run bench:stats -- [--n N] [--iterations I] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured runs of each path and of each kind of change (default 30)
  --warmup      uncounted runs of each first (default 3)
  --seed        seed of the generated records (default 1)`;

const options = readCounts(USAGE, SEEDED_LATENCY_COUNTS);

await runBenchCommand('bench:stats', async (context) =>
  formatStatsReport(await runStatsBench({ ...options, ...context })),
);
