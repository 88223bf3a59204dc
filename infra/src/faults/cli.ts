// `npm run test:faults [-- --creates 1000 --rows 10000]`: the fault suite at full size (see
// README.md "Fault suite"): the system as `npm start` runs it, on servers of its own in a fresh
// data directory, a client creating records and an upload running while each part is killed with
// SIGKILL in turn and started again; then every count compared with a direct count. Prints what
// was killed when and the table of checks; exits 1 when a check fails (the data directory and its
// logs are kept then), 2 on bad usage.
import { parseArgs } from 'node:util';
import { prepareLocalSystem } from '../prepare.ts';
import { formatReport, runFaultSuite } from './runner.ts';

const USAGE = `Usage: npm run test:faults -- [--creates N] [--rows N] [--keep]
  --creates  records the client creates one by one (default 1000)
  --rows     rows of the uploaded workbook, 1 in 100 invalid on purpose (default 10000)
  --keep     keep the data directory and its logs even when every check passes`;

const say = (line: string) => process.stdout.write(`${line}\n`);

function count(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 10) {
    process.stderr.write(`--${name} must be a whole number of at least 10 (got "${text}")\n\n${USAGE}\n`);
    process.exit(2);
  }
  return n;
}

let values: { creates?: string; rows?: string; keep?: boolean; help?: boolean };
try {
  values = parseArgs({
    options: {
      creates: { type: 'string' },
      rows: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  say(USAGE);
  process.exit(0);
}
// Ctrl-C: exiting runs the exit hook that kills every process the suite started.
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

try {
  // The suite kills servers of its own: servers named in the environment are not used.
  const env = { ...process.env };
  for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL']) delete env[name];
  prepareLocalSystem(env, say);
  const report = await runFaultSuite({
    creates: count(values.creates, 1000, 'creates'),
    uploadRows: count(values.rows, 10_000, 'rows'),
    log: say,
    ...(process.env.LOG_LEVEL ? { logLevel: process.env.LOG_LEVEL } : {}),
    keepData: values.keep ? 'always' : 'on-failure',
    // What a killed request left is published by the records service's import sweep (every 5 s) or
    // its retries (every second); the full sweep (10 min) is not waited for.
    settleTimeoutMs: 5 * 60_000,
  });
  say('');
  say(formatReport(report));
  process.exit(report.ok ? 0 : 1);
} catch (err) {
  process.stderr.write(`\ntest:faults failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
}
