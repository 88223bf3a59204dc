// `npm run bench:linking [-- --n 100000 --iterations 30 --warmup 3 --seed 1]`: seeds N records into
// the records service and the linking service's match index, then measures how soon a new record's
// link can be read and check-namlc-matches (see README.md "Benchmarks"). With `--island U`, the
// small island's mode (island-bench.ts): N − U seeded, U uploaded, auto-linking's keeping up measured. Honors MONGO_URL,
// NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { readCounts, runBenchCommand, SEEDED_LATENCY_COUNTS } from './src/cli.ts';
import { formatIslandReport, runIslandBench } from './src/island-bench.ts';
import { formatLinkingReport, runLinkingBench } from './src/linking-bench.ts';

const USAGE = `Usage: npm run bench:linking -- [--n N] [--iterations I] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured creates, and measured queries of each kind (default 30)
  --warmup      uncounted runs of each measurement first (default 3)
  --seed        seed of the generated records and queries (default 1)
  --island U    instead: a small island's names (issue 36) — N − U records seeded, then U uploaded by
                the three agencies at once through the batch upload; reports auto-linking's events
                per second, its lag after the uploads, redeliveries, the p95 of a NAMLC check and a
                links view during the backlog, and the linking service's heap per record`;

const { island, ...options } = readCounts(USAGE, { ...SEEDED_LATENCY_COUNTS, island: { fallback: 0, min: 0 } });
if (island >= options.n) {
  console.error(`--island must be under --n (${options.n})\n\n${USAGE}`);
  process.exit(2);
}

await runBenchCommand('bench:linking', async (context) =>
  island > 0
    ? formatIslandReport(await runIslandBench({ n: options.n, upload: island, seed: options.seed, ...context }))
    : formatLinkingReport(await runLinkingBench({ ...options, ...context })),
);
