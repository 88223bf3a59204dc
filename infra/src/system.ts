import path from 'node:path';
import type { NatsUser } from './nats.ts';
import { REPO_ROOT } from './paths.ts';
import { freePort, holdPort, isListening } from './ports.ts';
import { type ManagedProcess, spawnManaged, waitForReady } from './process.ts';
import { type IdentitySignerName, loadOrCreateSecrets, publicKeysOf } from './secrets.ts';
import { givenUrls, type InfraServer, type InfraUrls, type RunningInfra, startLocalInfra } from './stack.ts';

/** What every service gets; each service adds its own variables. */
interface Shared extends InfraUrls {
  /** The NATS URL of a part: as its own user (RunningInfra.natsUrlOf). */
  natsUrlOf: (user: NatsUser) => string;
  /** IDENTITY_PUBLIC_KEYS, which every service verifies identity tokens with. */
  publicKeys: string;
  /** The private keys of the parts that sign (each gets only its own). */
  privateKeys: Record<IdentitySignerName, string>;
  adminEmail: string;
  adminPassword: string;
  logLevel: string;
  /** The operator's OPENAI_* variables (the report service's model; none: the template). */
  openAi: Record<string, string>;
  /** The operator's INCIDENT_PROBE_* variables (the records service's budget of probes, ADR 0015). */
  probes: Record<string, string>;
  /** The operator's INGEST_* budgets and limits (the ingest service's, ADR 0011). */
  ingest: Record<string, string>;
}

/** The variables of the report service's model, as the operator set them. */
export const OPENAI_VARIABLES = [
  'OPENAI_MODEL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_TIMEOUT_SECONDS',
  'OPENAI_MAX_RETRIES',
] as const;

/** The variables of the records service's budget of incident-number probes (ADR 0015), as the operator set them. */
export const INCIDENT_PROBE_VARIABLES = ['INCIDENT_PROBE_LIMIT', 'INCIDENT_PROBE_WINDOW_MINUTES'] as const;

/** The ingest service's budgets of a job and limits of an agency (ADR 0011, issue 37), as the operator set them. */
export const INGEST_LIMIT_VARIABLES = [
  'INGEST_MAX_CELLS',
  'INGEST_JOB_MEMORY_MB',
  'INGEST_JOB_TIMEOUT_SECONDS',
  'INGEST_KEEP_HOURS',
  'INGEST_MAX_QUEUED_JOBS',
  'INGEST_MAX_MB_PER_DAY',
] as const;

/**
 * The deployables `npm start` runs, in start order (the gateway last). Each later service adds an
 * entry here; the gateway is told each one's URL as `<NAME>_URL`, and so is each service started
 * after it (`urls`).
 */
export const SERVICES: ReadonlyArray<{
  name: string;
  entry: string;
  /** Node options of the service's process (as its Dockerfile's CMD has them). */
  nodeOptions?: readonly string[];
  env: (s: Shared, urls: Record<string, string>) => Record<string, string>;
}> = [
  {
    name: 'auth',
    entry: 'services/auth/dist/main.js',
    env: (s) => ({
      MONGO_URL: s.mongoUrl,
      NATS_URL: s.natsUrlOf('auth'),
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      ADMIN_EMAIL: s.adminEmail,
      ADMIN_PASSWORD: s.adminPassword,
    }),
  },
  {
    name: 'records',
    entry: 'services/records/dist/main.js',
    env: (s) => ({
      MONGO_URL: s.mongoUrl,
      NATS_URL: s.natsUrlOf('records'),
      REDIS_URL: s.redisUrl,
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      ...s.probes,
    }),
  },
  {
    name: 'linking',
    entry: 'services/linking/dist/main.js',
    // Its match index is a live heap of 1–1.5 GB at 300,000 records: a full collection that also
    // compacts it held the event loop for 0.9–1.4 s, and the collections V8 starts only to give
    // memory back (the memory reducer) marked it all for 2 s while both cores were wanted by
    // requests; without either, marking runs in incremental steps, when the heap has grown (ADR 0007).
    // `--expose-gc`: one full collection once the index is loaded, so that the heap it logs is what
    // the index holds (issue 36's memory per record).
    nodeOptions: ['--no-compact', '--no-memory-reducer', '--expose-gc'],
    env: (s, urls) => ({
      MONGO_URL: s.mongoUrl,
      NATS_URL: s.natsUrlOf('linking'),
      // Asked whose a record is that the index has not seen yet (issue 36).
      RECORDS_URL: urls.RECORDS_URL as string,
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      IDENTITY_PRIVATE_KEY: s.privateKeys.linking,
    }),
  },
  {
    name: 'stats',
    entry: 'services/stats/dist/main.js',
    env: (s) => ({ MONGO_URL: s.mongoUrl, NATS_URL: s.natsUrlOf('stats'), IDENTITY_PUBLIC_KEYS: s.publicKeys }),
  },
  {
    name: 'ingest',
    entry: 'services/ingest/dist/main.js',
    // A job's parse thread collects a workbook's garbage once it is read (services/ingest jobs/parse-worker.ts).
    nodeOptions: ['--expose-gc'],
    env: (s, urls) => ({
      MONGO_URL: s.mongoUrl,
      NATS_URL: s.natsUrlOf('ingest'),
      REDIS_URL: s.redisUrl,
      RECORDS_URL: urls.RECORDS_URL as string,
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      IDENTITY_PRIVATE_KEY: s.privateKeys.ingest,
      ...s.ingest,
    }),
  },
  {
    name: 'report',
    entry: 'services/report/dist/main.js',
    env: (s, urls) => ({
      MONGO_URL: s.mongoUrl,
      NATS_URL: s.natsUrlOf('report'),
      REDIS_URL: s.redisUrl,
      STATS_URL: urls.STATS_URL as string,
      LINKING_URL: urls.LINKING_URL as string,
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      IDENTITY_PRIVATE_KEY: s.privateKeys.report,
      ...s.openAi,
    }),
  },
  {
    name: 'audit',
    entry: 'services/audit/dist/main.js',
    env: (s) => ({ MONGO_URL: s.mongoUrl, NATS_URL: s.natsUrlOf('audit'), IDENTITY_PUBLIC_KEYS: s.publicKeys }),
  },
  {
    name: 'ops',
    entry: 'services/ops/dist/main.js',
    env: (s, urls) => ({
      NATS_URL: s.natsUrlOf('ops'),
      REDIS_URL: s.redisUrl,
      IDENTITY_PUBLIC_KEYS: s.publicKeys,
      // Every other service: their readiness and builds.
      OPS_SERVICES: Object.entries(urls)
        .map(([variable, url]) => `${variable.replace(/_URL$/, '').toLowerCase()}=${url}`)
        .join(','),
    }),
  },
];

export interface SystemOptions {
  dataDir: string;
  gatewayPort: number;
  gatewayHost: string;
  adminEmail: string;
  /** Given by the operator (ADMIN_PASSWORD); otherwise generated once and kept in the data dir. */
  adminPassword?: string;
  logLevel?: string;
  /** MONGO_URL / NATS_URL / REDIS_URL: use those servers instead of starting local ones. */
  env?: Record<string, string | undefined>;
  log?: (line: string) => void;
  /** Runs once the infrastructure is up, before any service starts (a benchmark seeds its stores here). */
  beforeServices?: (infra: RunningInfra) => Promise<void>;
  /** How long each service may take to answer /readyz (default 60 s; a large seeded store takes longer). */
  readyTimeoutMs?: number;
  /** More variables of a service (or `gateway`) by name, over the ones given here (a test shortens a timeout). */
  serviceEnv?: Record<string, Record<string, string>>;
  /**
   * Told how long each part took to get ready: `local infrastructure` (the servers started here),
   * then each service and the gateway from its spawn to its first /readyz 200 (the services start
   * together, so their times overlap); again for a part started by `restart`.
   */
  onReady?: (part: string, ms: number) => void;
}

/** A part of the system `kill` and `restart` act on: a service, the gateway, or a server started here. */
export type SystemPart = string;

/** A process of the system that exited. */
export interface SystemExit {
  name: string;
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed or stopped on purpose (`kill`, `restart`, `stop`); otherwise a crash. */
  expected: boolean;
  at: Date;
}

export interface RunningSystem {
  url: string;
  admin: { email: string; password: string; generated: boolean };
  logsDir: string;
  infra: RunningInfra;
  /** Each service's own URL by name (`records`: `http://127.0.0.1:<port>`), behind the gateway. */
  services: Record<string, string>;
  /**
   * Each process id by name — the services, `gateway`, and the servers started here (`ferretdb`,
   * `nats`, `redis`); a restart updates it (a benchmark reads peak memory from /proc).
   */
  pids: Record<string, number>;
  /** Resolves with the first process that exits on its own (a crash; a `kill` is not one). */
  crashed: Promise<ManagedProcess>;
  /** Every process that exited so far, in order, each marked expected (killed, stopped) or not. */
  exits: readonly SystemExit[];
  /** The parts `kill` and `restart` take: every service, `gateway`, and each server started here. */
  parts: readonly SystemPart[];
  /**
   * `kill -9` of a part: SIGKILL, resolved once the process is gone (with its pid). Its exit is
   * expected (not a crash). Services reconnect to a restarted server by themselves; nothing else
   * is told.
   */
  kill(name: SystemPart): Promise<{ pid: number | undefined }>;
  /**
   * Starts a part again on the same port, variables and data directory (a running one is stopped
   * first), resolved once it is ready: a service or the gateway answering /readyz 200, a server
   * accepting connections.
   */
  restart(name: SystemPart): Promise<{ pid: number | undefined }>;
  /** Stops the gateway, then the services, then the infrastructure. */
  stop(): Promise<void>;
}

/** Starts infrastructure, every service and the gateway from their built bundles. */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const log = options.log ?? ((line: string) => console.error(line));
  const logsDir = path.join(options.dataDir, 'logs');
  // Held until the gateway starts (after the infrastructure and the services, seconds later), so
  // that no other test's freePort draws it meanwhile: EADDRINUSE in a whole-system suite (ADR 0021).
  const held = (await isListening(options.gatewayPort)) ? undefined : await holdPort(options.gatewayPort);
  if (!held) throw new Error(`Port ${options.gatewayPort} is already in use. Set GATEWAY_PORT to a free port.`);
  let releaseGatewayPort: (() => Promise<void>) | undefined = held.release;
  const freeGatewayPort = async () => {
    const release = releaseGatewayPort;
    releaseGatewayPort = undefined;
    await release?.();
  };
  const secrets = loadOrCreateSecrets(options.dataDir);
  const adminPassword = options.adminPassword ?? secrets.adminPassword;

  log('Starting local infrastructure (FerretDB, NATS JetStream, Redis)...');
  const pgUrl = options.env?.FERRETDB_POSTGRESQL_URL;
  const infraStarted = performance.now();
  const infra = await startLocalInfra({
    dataDir: options.dataDir,
    persist: true,
    given: givenUrls(options.env),
    ...(pgUrl ? { ferretdbPostgresqlUrl: pgUrl } : {}),
    credentials: { nats: secrets.natsPasswords, redis: secrets.redisPassword },
  }).catch(async (err: unknown) => {
    await freeGatewayPort();
    throw err;
  });
  options.onReady?.('local infrastructure', performance.now() - infraStarted);
  /** The services and the gateway as they run now, in start order; their launchers by name. */
  const running = new Map<string, ManagedProcess>();
  const launchers = new Map<string, () => Promise<ManagedProcess>>();
  /** Processes whose exit is on purpose (killed, restarted). */
  const intended = new Set<ManagedProcess>();
  const exits: SystemExit[] = [];
  let stopping = false;
  let reportCrash: (p: ManagedProcess) => void = () => {};
  const crashed = new Promise<ManagedProcess>((resolve) => {
    reportCrash = resolve;
  });
  const services: Record<string, string> = {};
  const pids: Record<string, number> = {};
  /** Notes a process's exit, and reports it as a crash unless it was meant. */
  const watch = (proc: ManagedProcess) => {
    if (proc.child.pid !== undefined) pids[proc.name] = proc.child.pid;
    void proc.exited.then((code) => {
      const expected = stopping || intended.has(proc);
      const { pid, signalCode } = proc.child;
      exits.push({ name: proc.name, pid, code, signal: signalCode, expected, at: new Date() });
      if (!expected) reportCrash(proc);
    });
  };
  for (const proc of Object.values(infra.processes)) watch(proc);

  const stop = async () => {
    stopping = true;
    for (const p of [...running.values()].reverse()) await p.stop();
    await infra.stop();
  };

  /** Those of `names` the operator set (options.env), to pass on to the service that reads them. */
  const setBy = (names: readonly string[]): Record<string, string> =>
    Object.fromEntries(names.flatMap((name) => (options.env?.[name] ? [[name, options.env[name] as string]] : [])));
  const shared: Shared = {
    mongoUrl: infra.mongoUrl,
    natsUrl: infra.natsUrl,
    natsUrlOf: infra.natsUrlOf,
    redisUrl: infra.redisUrl,
    publicKeys: publicKeysOf(secrets),
    privateKeys: Object.fromEntries(
      Object.entries(secrets.identityKeys).map(([name, pair]) => [name, pair.privateKey]),
    ) as Record<IdentitySignerName, string>,
    adminEmail: options.adminEmail,
    adminPassword,
    logLevel: options.logLevel ?? 'info',
    openAi: setBy(OPENAI_VARIABLES),
    probes: setBy(INCIDENT_PROBE_VARIABLES),
    ingest: setBy(INGEST_LIMIT_VARIABLES),
  };

  // NRAD_CPU_PROF_DIR: each process writes V8's CPU profile of its run into <dir>/<name>/ when it
  // stops (NODE_OPTIONS may not carry --cpu-prof); for finding where a benchmark's time goes.
  const profileDir = options.env?.NRAD_CPU_PROF_DIR;
  /** Starts a deployable from its bundle and waits for its /readyz; `restart` runs the same again. */
  const launch = async (
    name: string,
    entry: string,
    port: number,
    env: Record<string, string>,
    nodeOptions: readonly string[] = [],
  ) => {
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, name)}`] : [];
    const start = async () => {
      const args = ['--enable-source-maps', ...profile, ...nodeOptions, path.join(REPO_ROOT, entry)];
      const spawned = performance.now();
      const proc = spawnManaged(name, process.execPath, args, {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          LOG_LEVEL: shared.logLevel,
          PORT: String(port),
          ...env,
          ...options.serviceEnv?.[name],
        },
        logFile: path.join(logsDir, `${name}.log`),
      });
      running.set(name, proc);
      watch(proc);
      // A start that fails is stopped by waitForReady: its exit is the failure thrown, not a crash.
      intended.add(proc);
      await waitForReady(proc, name, () => ready(port), options.readyTimeoutMs ?? 60_000);
      intended.delete(proc);
      options.onReady?.(name, performance.now() - spawned);
      return proc;
    };
    launchers.set(name, start);
    await start();
  };

  const serviceUrls: Record<string, string> = {};
  try {
    await options.beforeServices?.(infra);
    // Every port first, so that each service is given the URLs of the ones it calls; then all of
    // them at once (none waits for another to be ready: each retries what it calls), the gateway
    // last. The eight services were ready in 3.9 s this way on two cores, 6.9 s one after another
    // (ADR 0021).
    const ports = new Map<string, number>();
    // None binds its port before all are drawn, and the gateway binds last: a port drawn twice (the
    // gateway's, say) would leave a service answering on the gateway's address.
    const taken = new Set([options.gatewayPort]);
    const drawPort = async () => {
      let port = await freePort();
      while (taken.has(port)) port = await freePort();
      taken.add(port);
      return port;
    };
    for (const service of SERVICES) {
      const port = await drawPort();
      ports.set(service.name, port);
      const url = `http://127.0.0.1:${port}`;
      services[service.name] = url;
      serviceUrls[`${service.name.toUpperCase()}_URL`] = url;
    }
    const started = await Promise.allSettled(
      SERVICES.map((service) => {
        const { [`${service.name.toUpperCase()}_URL`]: _self, ...others } = serviceUrls;
        log(`Starting ${service.name}...`);
        return launch(
          service.name,
          service.entry,
          ports.get(service.name) as number,
          { HOST: '127.0.0.1', ...service.env(shared, others) },
          service.nodeOptions,
        );
      }),
    );
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    log('Starting gateway...');
    const metricsPort = await drawPort();
    await freeGatewayPort();
    await launch('gateway', 'gateway/dist/main.js', options.gatewayPort, {
      HOST: options.gatewayHost,
      REDIS_URL: infra.redisUrl,
      NATS_URL: infra.natsUrlOf('gateway'),
      IDENTITY_PRIVATE_KEY: secrets.identityKeys.gateway.privateKey,
      SESSION_SECRET: secrets.sessionSecret,
      METRICS_PORT: String(metricsPort),
      ...(options.env?.MF_REMOTES ? { MF_REMOTES: options.env.MF_REMOTES } : {}),
      ...serviceUrls,
    });
  } catch (err) {
    await freeGatewayPort();
    await stop();
    throw err;
  }

  const servers = new Set<string>(infra.started);
  const partOf = (name: SystemPart) => {
    if (!launchers.has(name) && !servers.has(name)) {
      throw new Error(`${name} is not a part of this system (${[...launchers.keys(), ...servers].join(', ')})`);
    }
    return name;
  };
  return {
    url: `http://localhost:${options.gatewayPort}`,
    admin: { email: options.adminEmail, password: adminPassword, generated: options.adminPassword === undefined },
    logsDir,
    infra,
    services,
    pids,
    crashed,
    exits,
    parts: [...launchers.keys(), ...servers],
    async kill(name) {
      partOf(name);
      const proc = servers.has(name) ? infra.processes[name as InfraServer] : running.get(name);
      if (!proc) throw new Error(`${name} is not running`);
      intended.add(proc);
      const pid = proc.child.pid;
      if (servers.has(name)) await infra.kill(name as InfraServer);
      else await proc.kill();
      return { pid };
    },
    async restart(name) {
      partOf(name);
      if (servers.has(name)) {
        const old = infra.processes[name as InfraServer];
        if (old) intended.add(old);
        const proc = await infra.restart(name as InfraServer);
        watch(proc);
        return { pid: proc.child.pid };
      }
      const old = running.get(name);
      if (old) {
        intended.add(old);
        await old.stop();
      }
      const proc = await (launchers.get(name) as () => Promise<ManagedProcess>)();
      return { pid: proc.child.pid };
    },
    stop,
  };
}

async function ready(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}
