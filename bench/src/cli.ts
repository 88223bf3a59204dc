import { parseArgs } from 'node:util';
import { prepareLocalSystem } from '@nrad/infra';
import { Cleanup, type RunContext } from './harness.ts';

/**
 * The command line of a benchmark: `--name value` options (each a whole number) and `--help`. A
 * bad value or an unknown option prints the usage and exits with status 2.
 */
/** The counts of a latency benchmark over N seeded records (bench:linking, bench:stats, bench:report). */
export const SEEDED_LATENCY_COUNTS = {
  n: { fallback: 100_000, min: 3, env: 'BENCH_N' },
  iterations: { fallback: 30, min: 1 },
  warmup: { fallback: 3, min: 0 },
  seed: { fallback: 1, min: 0 },
} as const;

export function readCounts<const Name extends string>(
  usage: string,
  specs: Record<Name, { fallback: number; min: number; env?: string }>,
): Record<Name, number> {
  return readCommandLine(usage, specs).counts;
}

/** readCounts, and options of text besides (`--set febrl4`): each undefined when not given. */
export function readCommandLine<const Name extends string, const Text extends string = never>(
  usage: string,
  specs: Record<Name, { fallback: number; min: number; env?: string }>,
  texts: readonly Text[] = [],
): { counts: Record<Name, number>; texts: Partial<Record<Text, string>> } {
  let values: Record<string, string | boolean | undefined>;
  try {
    const options = Object.fromEntries(
      [...Object.keys(specs), ...texts].map((name) => [name, { type: 'string' as const }]),
    );
    values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  const counts = {} as Record<Name, number>;
  for (const [name, spec] of Object.entries(specs) as Array<[Name, { fallback: number; min: number; env?: string }]>) {
    const text = (values[name] as string | undefined) ?? (spec.env ? process.env[spec.env] : undefined);
    if (text === undefined || text === '') {
      counts[name] = spec.fallback;
      continue;
    }
    const value = Number(text);
    if (!Number.isInteger(value) || value < spec.min) {
      console.error(`--${name} must be a whole number of at least ${spec.min} (got "${text}")\n\n${usage}`);
      process.exit(2);
    }
    counts[name] = value;
  }
  const given = Object.fromEntries(texts.map((name) => [name, values[name] as string | undefined])) as Partial<
    Record<Text, string>
  >;
  return { counts, texts: given };
}

/**
 * Runs a benchmark as `npm start` runs the system (prepareLocalSystem first), prints its report,
 * and stops and removes everything it started at the end, on an error and on Ctrl-C.
 */
export async function runBenchCommand(name: string, run: (context: RunContext) => Promise<string>): Promise<void> {
  const env = process.env;
  const say = (line: string) => console.log(line);
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
    const report = await run({ env, log: say, cleanup });
    say('Stopping the system...');
    await cleanup.run();
    say('');
    say(report);
  } catch (err) {
    if (!interrupted) {
      console.error(`\n${name} failed: ${(err as Error).message}`);
      await cleanup.run();
      process.exit(1);
    }
  }
}
