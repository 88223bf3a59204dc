// `npm run bench:report [-- --n 100000 --iterations 30 --warmup 3 --seed 1]`: seeds N records into
// the records collection, the linking index (one link between agencies per hundred records) and
// the stats read model, then measures collecting a report's figures and the whole report request
// against a local model server that answers at once (see README.md "Benchmarks"). Honors
// MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does;
// BENCH_N sets N.
import { readCounts, runBenchCommand, SEEDED_LATENCY_COUNTS } from './src/cli.ts';
import { formatReportBench, runReportBench } from './src/report-bench.ts';

const USAGE = `Usage: npm run bench:report -- [--n N] [--iterations I] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured runs of each operation (default 30)
  --warmup      uncounted runs of each first (default 3)
  --seed        seed of the generated records (default 1)`;

const options = readCounts(USAGE, SEEDED_LATENCY_COUNTS);

await runBenchCommand('bench:report', async (context) =>
  formatReportBench(await runReportBench({ ...options, ...context })),
);
