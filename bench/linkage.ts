// `npm run linkage:service -- --set S [--seed X] [--limit N]`: a labelled person set through the
// running service (issue 36's "How it will be checked"; truth-bench.ts): uploaded across the three
// agencies with the batch upload, auto-links and possible matches counted against the truth.
// Honors MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does.
import { readCommandLine, runBenchCommand } from './src/cli.ts';
import { formatTruthReport, runTruthBench, TRUTH_SETS } from './src/truth-bench.ts';

const USAGE = `Usage: npm run linkage:service -- --set S [--seed X] [--limit N]
  --set    ${TRUTH_SETS.join(', ')} (FEBRL from ../shared/data/linkage; the others generated, as linkage:eval's held-out sets)
  --seed   seed of the held-out set, of the agencies drawn and of the other fields (default 1)
  --limit  only the first N records of the set (default 0: all)`;

const {
  counts: { seed, limit },
  texts,
} = readCommandLine(USAGE, { seed: { fallback: 1, min: 0 }, limit: { fallback: 0, min: 0 } }, ['set']);
const set = TRUTH_SETS.find((name) => name === texts.set);
if (!set) {
  console.error(`--set must be one of ${TRUTH_SETS.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}

await runBenchCommand('linkage:service', async (context) =>
  formatTruthReport(await runTruthBench({ set, seed, ...(limit > 0 ? { limit } : {}), ...context })),
);
