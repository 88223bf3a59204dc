// `npm run bench:load [-- --users 200 --seconds 300 --warmup 30 --records 300000 --think 10000 --seed 1]`: the
// load test of issue 21: the whole system as `npm start` runs it, with RECORDS records seeded, and
// USERS signed-in agency users (plus ADMIN sessions) driving the screens' mix of requests through
// autocannon for SECONDS; prints throughput, p50/p95/p99 per operation, errors and the targets (see
// README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and
// LOG_LEVEL as `npm start` does; BENCH_LOGS=<dir> keeps a copy of the services' logs.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { formatLoadReport, runLoadBench } from './src/load-bench.ts';

const USAGE = `Usage: npm run bench:load -- [--users U] [--seconds S] [--warmup W] [--records N] [--think MS] [--admins A] [--seed X]
  --users    agency users, spread over BPS, FIA and CUS, each its own session and connection (default 200)
  --seconds  how long the mix runs, measured (default 300)
  --warmup   seconds the users run the mix before the measured run, reported apart (default 30)
  --records  records seeded before the services start, spread over the agencies (default 300000:
             100,000 per agency; or BENCH_N)
  --think    mean ms a user waits after an answer before its next request, drawn from 0.5–1.5×
             (default 10000: an officer reading a record or a list, typing a search or
             filling in a form; 0: none, a closed loop)
  --admins   ADMIN sessions reading the Admin Panel beside the agency users (default 2)
  --seed     seed of the generated records and of each user's choices (default 1)
BENCH_LOGS=<dir> copies the services' logs there before the run's directory is removed.`;

const options = readCounts(USAGE, {
  users: { fallback: 200, min: 1 },
  seconds: { fallback: 300, min: 1 },
  warmup: { fallback: 30, min: 0 },
  records: { fallback: 300_000, min: 3, env: 'BENCH_N' },
  think: { fallback: 10_000, min: 0 },
  admins: { fallback: 2, min: 0 },
  seed: { fallback: 1, min: 0 },
});

await runBenchCommand('bench:load', async (context) =>
  formatLoadReport(await runLoadBench({ ...options, ...context })),
);
