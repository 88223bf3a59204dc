import path from 'node:path';
import { startFerretdb } from './ferretdb.ts';
import { type NatsUser, natsUrlAs, startNats } from './nats.ts';
import type { ManagedProcess } from './process.ts';
import { startRedis } from './redis.ts';

export interface InfraUrls {
  mongoUrl: string;
  natsUrl: string;
  redisUrl: string;
}

/** The servers `startLocalInfra` may start, by the name of their process (and log). */
export const INFRA_SERVERS = ['ferretdb', 'nats', 'redis'] as const;
export type InfraServer = (typeof INFRA_SERVERS)[number];

export interface RunningInfra extends InfraUrls {
  /**
   * The NATS URL a part connects with: as its own user when the servers were started here with
   * credentials, else `natsUrl` (a given server, or tests' open ones). `natsUrl` itself is the
   * operator's (benchmarks, the fault suite).
   */
  natsUrlOf(user: NatsUser): string;
  /** What was started here (empty when every URL came from the environment). */
  started: string[];
  /** The process of each server started here, as it runs now (another one after a restart). */
  processes: Partial<Record<InfraServer, ManagedProcess>>;
  /**
   * Kills a server started here with SIGKILL (`kill -9`: no shutdown of its own) and resolves once
   * it is gone, with the process killed.
   */
  kill(name: InfraServer): Promise<ManagedProcess>;
  /**
   * Starts a server started here again, on the same port and data directory, once the one before
   * has exited (a running one is stopped first); resolves with the new process once it accepts
   * connections.
   */
  restart(name: InfraServer): Promise<ManagedProcess>;
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
  /** Passwords the servers started here require (issue 37: npm start's); none: open (tests). */
  credentials?: { nats: Record<NatsUser, string>; redis: string };
}

/** The port of a server's URL (`mongodb://127.0.0.1:27017/`, `nats://127.0.0.1:4222`). */
function portOf(url: string): number {
  const port = Number(new URL(url).port);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no port in ${url}`);
  return port;
}

/**
 * Starts what is not given — the embedded FerretDB, nats-server with JetStream, redis-server — as
 * child processes on free ports, with data under `dataDir`. If one fails, the others are stopped.
 * Each server started can be killed and started again on its port and data (`kill`, `restart`).
 */
export async function startLocalInfra(options: LocalInfraOptions): Promise<RunningInfra> {
  const { dataDir, given = {} } = options;
  const logs = path.join(dataDir, 'logs');
  /** How each server starts, on a given port (undefined: a free one). */
  const starters: Record<InfraServer, (port?: number) => Promise<{ url: string; process: ManagedProcess }>> = {
    ferretdb: (port) =>
      startFerretdb({
        sqliteDir: path.join(dataDir, 'ferretdb'),
        ...(options.ferretdbPostgresqlUrl ? { postgresqlUrl: options.ferretdbPostgresqlUrl } : {}),
        logFile: path.join(logs, 'ferretdb.log'),
        ...(port ? { port } : {}),
      }),
    nats: (port) =>
      startNats({
        storeDir: path.join(dataDir, 'nats'),
        logFile: path.join(logs, 'nats.log'),
        ...(port ? { port } : {}),
        ...(options.credentials ? { passwords: options.credentials.nats } : {}),
      }),
    redis: (port) =>
      startRedis({
        dir: path.join(dataDir, 'redis'),
        persist: options.persist,
        logFile: path.join(logs, 'redis.log'),
        ...(port ? { port } : {}),
        ...(options.credentials ? { password: options.credentials.redis } : {}),
      }),
  };
  const processes: Partial<Record<InfraServer, ManagedProcess>> = {};
  const ports: Partial<Record<InfraServer, number>> = {};
  const started: InfraServer[] = [];
  const stop = async () => {
    const procs = Object.values(processes);
    for (const name of INFRA_SERVERS) delete processes[name];
    await Promise.all(procs.map((p) => p.stop()));
  };
  /** Starts a server (first start: a free port), remembers its process and port, yields its URL. */
  const start = async (name: InfraServer) => {
    const r = await starters[name](ports[name]);
    processes[name] = r.process;
    ports[name] ??= portOf(r.url);
    if (!started.includes(name)) started.push(name);
    return r.url;
  };
  const startedHere = (name: InfraServer): ManagedProcess => {
    const proc = processes[name];
    if (!proc || ports[name] === undefined) throw new Error(`${name} was not started here (its URL was given)`);
    return proc;
  };
  try {
    const [mongoUrl, natsServer, redisUrl] = await Promise.all([
      given.mongoUrl ?? start('ferretdb'),
      given.natsUrl ?? start('nats'),
      given.redisUrl ?? start('redis'),
    ]);
    const natsPasswords = given.natsUrl ? undefined : options.credentials?.nats;
    const natsUrlOf = (user: NatsUser) =>
      natsPasswords ? natsUrlAs(natsServer, user, natsPasswords[user]) : natsServer;
    return {
      mongoUrl,
      natsUrl: natsUrlOf('operator'),
      natsUrlOf,
      redisUrl,
      started,
      processes,
      async kill(name) {
        const proc = startedHere(name);
        await proc.kill();
        return proc;
      },
      async restart(name) {
        await startedHere(name).stop();
        await start(name);
        return processes[name] as ManagedProcess;
      },
      stop,
    };
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
