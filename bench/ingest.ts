// `npm run bench:ingest [-- --n 100000 --seed 1 --invalid 1 --near 1 --second 10000]`: a batch upload
// of N rows through the gateway, timed from the upload to every valid record readable, counted on the
// Dashboard and auto-linked, beside SheetJS reading the same file alone, with the ingest process's
// peak RSS; with --second, another agency's upload sent while the first is processed, timed to its
// 202 and each read of its job (issue 37; see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL,
// REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand } from './src/cli.ts';
import { formatIngestReport, runIngestBench } from './src/ingest-bench.ts';

const USAGE = `Usage: npm run bench:ingest -- [--n N] [--seed X] [--invalid P] [--near P]
  --n        rows of the uploaded file (default 100000, or BENCH_N)
  --seed     seed of the generated rows (default 1)
  --invalid  percent of rows that are invalid (default 1)
  --near     percent of rows that are near-duplicates of intelligence records (default 1)
  --second   rows of another agency's upload sent while the first is processed (default 0: none)`;

const { invalid, near, second, ...options } = readCounts(USAGE, {
  n: { fallback: 100_000, min: 10, env: 'BENCH_N' },
  seed: { fallback: 1, min: 0 },
  invalid: { fallback: 1, min: 0 },
  near: { fallback: 1, min: 0 },
  second: { fallback: 0, min: 0 },
});

await runBenchCommand('bench:ingest', async (context) =>
  formatIngestReport(
    await runIngestBench({ ...options, invalidPercent: invalid, nearPercent: near, secondRows: second, ...context }),
  ),
);
