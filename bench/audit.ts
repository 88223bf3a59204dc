// `npm run bench:audit [-- --entries 100000 --iterations 30 --warmup 3 --seed 1]`: N audit events
// published to an AUDIT stream of the run's own and stored by the audit service (in process, its
// real writer and HTTP app), then the reads of GET /api/audit, verify over the whole chain and a
// retention run (see README.md "Benchmarks"). Starts its own FerretDB (our build) and NATS in a
// throwaway directory unless MONGO_URL / NATS_URL name servers (FERRETDB_POSTGRESQL_URL as npm
// start does); BENCH_N sets N. Its databases and streams are removed at the end and on Ctrl-C.

import { formatAuditReport, runAuditBench } from './src/audit-bench.ts';
import { readCounts } from './src/cli.ts';
import { Cleanup } from './src/harness.ts';

const USAGE = `Usage: npm run bench:audit -- [--entries N] [--iterations I] [--warmup W] [--seed X]
  --entries     audit events published and stored (default 100000, or BENCH_N)
  --iterations  measured runs of each read (default 30)
  --warmup      uncounted runs of each read first (default 3)
  --seed        seed of the generated events (default 1)`;

const options = readCounts(USAGE, {
  entries: { fallback: 100_000, min: 100, env: 'BENCH_N' },
  iterations: { fallback: 30, min: 1 },
  warmup: { fallback: 3, min: 0 },
  seed: { fallback: 1, min: 0 },
});

const cleanup = new Cleanup();
let interrupted = false;
const interrupt = async (signal: string) => {
  if (interrupted) return;
  interrupted = true;
  console.error(`\n${signal}: stopping the servers and removing the run's data...`);
  await cleanup.run();
  process.exit(130);
};
process.on('SIGINT', () => void interrupt('SIGINT'));
process.on('SIGTERM', () => void interrupt('SIGTERM'));

try {
  const report = await runAuditBench({ ...options, env: process.env, log: (line) => console.log(line), cleanup });
  console.log('Stopping...');
  await cleanup.run();
  console.log('');
  console.log(formatAuditReport(report));
} catch (err) {
  if (!interrupted) {
    console.error(`\nbench:audit failed: ${(err as Error).message}`);
    await cleanup.run();
    process.exit(1);
  }
}
