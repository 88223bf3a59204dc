// `npm run bench:linking [-- --n 100000 --iterations 30 --warmup 3 --seed 1]`: seeds N records into
// the records service and the linking service's match index, then measures how soon a new record's
// link can be read and check-namlc-matches (see README.md "Benchmarks"). Honors MONGO_URL,
// NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand, SEEDED_LATENCY_COUNTS } from './src/cli.ts';
import { formatLinkingReport, runLinkingBench } from './src/linking-bench.ts';

const USAGE = `Usage: npm run bench:linking -- [--n N] [--iterations I] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured creates, and measured queries of each kind (default 30)
  --warmup      uncounted runs of each measurement first (default 3)
  --seed        seed of the generated records and queries (default 1)`;

const options = readCounts(USAGE, SEEDED_LATENCY_COUNTS);

await runBenchCommand('bench:linking', async (context) =>
  formatLinkingReport(await runLinkingBench({ ...options, ...context })),
);
