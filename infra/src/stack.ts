import path from 'node:path';
import { startFerretdb } from './ferretdb.ts';
import { startNats } from './nats.ts';
import type { ManagedProcess } from './process.ts';
import { startRedis } from './redis.ts';

export interface InfraUrls {
  mongoUrl: string;
  natsUrl: string;
  redisUrl: string;
}

export interface RunningInfra extends InfraUrls {
  /** What was started here (empty when every URL came from the environment). */
  started: string[];
  stop(): Promise<void>;
}

export interface LocalInfraOptions {
  /** Data lives under this directory: ferretdb/, nats/, redis/, logs/. */
  dataDir: string;
  /** Keep data across restarts (npm start) or throw it away (tests). */
  persist: boolean;
  /** URLs already given (MONGO_URL, NATS_URL, REDIS_URL): those servers are used, not started. */
  given?: Partial<InfraUrls>;
  /** FerretDB on PostgreSQL instead of SQLite files. */
  ferretdbPostgresqlUrl?: string;
}

/**
 * Starts what is not given — the embedded FerretDB, nats-server with JetStream, redis-server — as
 * child processes on free ports, with data under `dataDir`. If one fails, the others are stopped.
 */
export async function startLocalInfra(options: LocalInfraOptions): Promise<RunningInfra> {
  const { dataDir, given = {} } = options;
  const logs = path.join(dataDir, 'logs');
  const procs: ManagedProcess[] = [];
  const stop = async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
  };
  /** Remembers a started server (so a later failure stops it) and yields its URL. */
  const keep = (r: { url: string; process: ManagedProcess }) => {
    procs.push(r.process);
    return r.url;
  };
  try {
    const [mongoUrl, natsUrl, redisUrl] = await Promise.all([
      given.mongoUrl ??
        startFerretdb({
          sqliteDir: path.join(dataDir, 'ferretdb'),
          ...(options.ferretdbPostgresqlUrl ? { postgresqlUrl: options.ferretdbPostgresqlUrl } : {}),
          logFile: path.join(logs, 'ferretdb.log'),
        }).then(keep),
      given.natsUrl ??
        startNats({ storeDir: path.join(dataDir, 'nats'), logFile: path.join(logs, 'nats.log') }).then(keep),
      given.redisUrl ??
        startRedis({
          dir: path.join(dataDir, 'redis'),
          persist: options.persist,
          logFile: path.join(logs, 'redis.log'),
        }).then(keep),
    ]);
    return { mongoUrl, natsUrl, redisUrl, started: procs.map((p) => p.name), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The URLs the environment gives (each optional). */
export function givenUrls(env: Record<string, string | undefined> = process.env): Partial<InfraUrls> {
  return {
    ...(env.MONGO_URL ? { mongoUrl: env.MONGO_URL } : {}),
    ...(env.NATS_URL ? { natsUrl: env.NATS_URL } : {}),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
  };
}
