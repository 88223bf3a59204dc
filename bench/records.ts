// `npm run bench:records [-- --n 100000 --iterations 20 --budget 30 --warmup 2 --seed 1]`: seeds
// N records and measures list, get, create and every kind of search through the gateway and
// directly against the store (see README.md "Benchmarks"). Honors MONGO_URL, NATS_URL, REDIS_URL,
// FERRETDB_POSTGRESQL_URL and LOG_LEVEL as `npm start` does; BENCH_N sets N.
import { parseArgs } from 'node:util';
import { prepareLocalSystem } from '@nrad/infra';
import { Cleanup, runRecordsBench } from './src/records-bench.ts';
import { formatReport } from './src/report.ts';

const USAGE = `Usage: npm run bench:records -- [--n N] [--iterations I] [--budget S] [--warmup W] [--seed X]
  --n           records to seed, spread over BPS, FIA and CUS (default 100000, or BENCH_N)
  --iterations  measured runs of each operation at most (default 20)
  --budget      seconds an operation may take before it stops at the runs it has, at least one (default 30)
  --warmup      uncounted runs of each operation first, while it takes under 1 s (default 2)
  --seed        seed of the generated records and queries (default 1)`;

const env = process.env;
const say = (line: string) => console.log(line);

function count(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be a whole number of at least ${min} (got "${text}")\n\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

function readArgs() {
  try {
    return parseArgs({
      options: {
        n: { type: 'string' },
        iterations: { type: 'string' },
        budget: { type: 'string' },
        warmup: { type: 'string' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const args = readArgs();
if (args.help) {
  say(USAGE);
  process.exit(0);
}
const options = {
  n: count('n', args.n ?? env.BENCH_N, 100_000, 3),
  iterations: count('iterations', args.iterations, 20, 1),
  budgetSeconds: count('budget', args.budget, 30, 0),
  warmup: count('warmup', args.warmup, 2, 0),
  seed: count('seed', args.seed, 1, 0),
};

const cleanup = new Cleanup();
let interrupted = false;
const interrupt = async (signal: string) => {
  if (interrupted) return;
  interrupted = true;
  console.error(`\n${signal}: stopping the system and removing its data...`);
  await cleanup.run();
  process.exit(130);
};
process.on('SIGINT', () => void interrupt('SIGINT'));
process.on('SIGTERM', () => void interrupt('SIGTERM'));

try {
  prepareLocalSystem(env, say);

  say('Starting the system...');
  const report = await runRecordsBench({ ...options, env, log: say, cleanup });
  say('Stopping the system...');
  await cleanup.run();
  say('');
  say(formatReport(report));
} catch (err) {
  if (!interrupted) {
    console.error(`\nbench:records failed: ${(err as Error).message}`);
    await cleanup.run();
    process.exit(1);
  }
}
