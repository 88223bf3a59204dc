// `npm run linkage:service -- --set S [--seed X] [--limit N]`: a labelled person set through the
// running service (issue 36's "How it will be checked"; truth-bench.ts): uploaded across the three
// agencies with the batch upload, auto-links and possible matches counted against the truth.
// Honors MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does.
import { parseArgs } from 'node:util';
import { runBenchCommand } from './src/cli.ts';
import { formatTruthReport, runTruthBench, TRUTH_SETS, type TruthSet } from './src/truth-bench.ts';

const USAGE = `Usage: npm run linkage:service -- --set S [--seed X] [--limit N]
  --set    ${TRUTH_SETS.join(', ')} (FEBRL from ../shared/data/linkage; the others generated, as linkage:eval's held-out sets)
  --seed   seed of the held-out set, of the agencies drawn and of the other fields (default 1)
  --limit  only the first N records of the set (default: all)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: Record<string, string | boolean | undefined> = {};
try {
  values = parseArgs({
    options: {
      set: { type: 'string' },
      seed: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (err) {
  fail((err as Error).message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const set = values.set as string | undefined;
if (!set || !(TRUTH_SETS as readonly string[]).includes(set)) fail(`--set must be one of ${TRUTH_SETS.join(', ')}`);
const whole = (name: string, min: number): number | undefined => {
  const text = values[name] as string | undefined;
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min)
    fail(`--${name} must be a whole number of at least ${min} (got "${text}")`);
  return value;
};
const seed = whole('seed', 0) ?? 1;
const limit = whole('limit', 2);

await runBenchCommand('linkage:service', async (context) =>
  formatTruthReport(
    await runTruthBench({ set: set as TruthSet, seed, ...(limit === undefined ? {} : { limit }), ...context }),
  ),
);
