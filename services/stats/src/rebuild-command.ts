import { connectBus, connectMongo, createLogger, loadConfig } from '@nrad/service-kit';
import type { z } from 'zod';
import { StatsConfigSchema } from './config.ts';
import { StatsStore } from './data/store.ts';
import { rebuildReadModel } from './use-cases/rebuild.ts';

/** What the rebuild reads from the environment: the service's database and stream settings. */
const RebuildConfigSchema = StatsConfigSchema.pick({
  LOG_LEVEL: true,
  MONGO_URL: true,
  MONGO_DB: true,
  NATS_URL: true,
  RECORDS_STREAM: true,
  RECORDS_SUBJECT_PREFIX: true,
  RECORDS_CONSUMER: true,
});
export type RebuildConfig = z.output<typeof RebuildConfigSchema>;

export const REBUILD_USAGE = `usage: stats-rebuild [--force]
Replays the RECORDS stream from its start into a fresh read model of the stats service, which then
replaces the old one. Stop the stats service first. --force rebuilds even while the service's
consumer has a client, or from a stream that no longer holds its first events.
Reads MONGO_URL, MONGO_DB, NATS_URL, RECORDS_STREAM, RECORDS_SUBJECT_PREFIX and RECORDS_CONSUMER
as the service does.`;

/**
 * The rebuild command: parses the arguments and the environment, connects, rebuilds, and reports
 * through `say`. Resolves with the exit code (0 rebuilt, 1 refused or failed, 2 bad usage).
 */
export async function rebuildCommand(
  env: Record<string, string | undefined>,
  args: readonly string[],
  say: (line: string) => void,
): Promise<number> {
  if (args.some((a) => a !== '--force')) {
    say(REBUILD_USAGE);
    return args.includes('--help') || args.includes('-h') ? 0 : 2;
  }
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const config = loadConfig(RebuildConfigSchema, { LOG_LEVEL: 'warn', ...env });
    const logger = createLogger({ name: 'stats-rebuild', level: config.LOG_LEVEL });
    const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
    closers.push(() => db.close());
    const bus = await connectBus({ url: config.NATS_URL, name: 'stats-rebuild' });
    closers.push(() => bus.nc.close());
    const store = new StatsStore(db);
    await store.init();
    const report = await rebuildReadModel({
      store,
      bus,
      logger,
      stream: config.RECORDS_STREAM,
      subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
      durable: config.RECORDS_CONSUMER,
      force: args.includes('--force'),
    });
    say(
      `Rebuilt the stats read model of ${config.MONGO_DB} from ${config.RECORDS_STREAM}: ` +
        `${report.events} events, ${report.records} records, ${report.undecodable} undecodable, ${report.ms} ms.`,
    );
    return 0;
  } catch (err) {
    say(`stats-rebuild: ${(err as Error).message}`);
    return 1;
  } finally {
    for (const close of closers.reverse()) await close();
  }
}
