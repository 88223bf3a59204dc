import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type Agency, NEXT_CURSOR_HEADER, TOTAL_COUNT_HEADER, type UserIdentity } from '@nrad/contracts';
import { FERRETDB_SOURCE_DIR, freePort, REPO_ROOT, type RunningInfra } from '@nrad/infra';
import { type RunningSystem, SERVICES, startSystem } from '@nrad/infra/system';
import type { mongo } from 'mongoose';

/** What every benchmark run gets from its command line and its caller. */
export interface RunContext {
  /** MONGO_URL, NATS_URL, REDIS_URL, FERRETDB_POSTGRESQL_URL and LOG_LEVEL, as `npm start` reads them. */
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  /** Where the run registers its stops, so that an interrupt can run them too. */
  cleanup: Cleanup;
}

/** Undo steps run last-in first-out, once, whoever asks first (the normal end, an error, Ctrl-C). */
export class Cleanup {
  private readonly steps: Array<() => unknown> = [];
  private done: Promise<void> | undefined;

  add(step: () => unknown): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.done ??= (async () => {
      for (let step = this.steps.pop(); step; step = this.steps.pop()) {
        try {
          await step();
        } catch (err) {
          console.error(`cleanup: ${(err as Error).message}`);
        }
      }
    })();
    return this.done;
  }
}

/** A JSON client of the gateway with a cookie jar: one signed-in browser (or a client of one service). */
export class GatewayClient {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly base: string) {}

  /** One request; `ms` runs from sending it to having read the whole answer. */
  async call(method: string, pathname: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    // A browser sends its origin with writes; the gateway refuses writes from other origins.
    if (method !== 'GET') headers.origin = this.base;
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    // A form (a file upload) goes as multipart, framed by fetch; anything else as JSON.
    const form = body instanceof FormData ? body : undefined;
    const payload = body === undefined || form ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    const res = await fetch(`${this.base}${pathname}`, {
      method,
      headers,
      ...(form ? { body: form } : payload ? { body: payload } : {}),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0] ?? '';
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1).trim();
      if (value) this.cookies.set(pair.slice(0, eq).trim(), value);
      else this.cookies.delete(pair.slice(0, eq).trim());
    }
    return { status: res.status, headers: res.headers, text, ms };
  }

  /**
   * A call that must answer `status`; `total` is its X-Total-Count and `next` its X-Next-Cursor
   * when it has them.
   */
  async expect(status: number, method: string, pathname: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.call(method, pathname, body, headers);
    if (res.status !== status) {
      throw new Error(`${method} ${pathname} answered ${res.status} (expected ${status}): ${res.text.slice(0, 500)}`);
    }
    const total = res.headers.get(TOTAL_COUNT_HEADER);
    const next = res.headers.get(NEXT_CURSOR_HEADER);
    return {
      ms: res.ms,
      text: res.text,
      ...(total === null ? {} : { total: Number(total) }),
      ...(next === null ? {} : { next }),
    };
  }
}

/** One agency's user, signed in through the gateway. */
export interface AgencyUser {
  agency: Agency;
  user: UserIdentity;
  http: GatewayClient;
  /** The user's sign-in, to sign in again (after a restart, as another browser). */
  email: string;
  password: string;
}

/** Signs in through the gateway as a new browser would (a fresh cookie jar); `ms` is the sign-in's. */
export async function signIn(base: string, email: string, password: string) {
  const http = new GatewayClient(base);
  const login = await http.expect(200, 'POST', '/api/auth/login', { email, password });
  const { user } = JSON.parse(login.text) as {
    user: { id: string; name: string; organization: UserIdentity['organization']; role: string };
  };
  const identity: UserIdentity = {
    kind: 'user',
    userId: user.id,
    name: user.name,
    organization: user.organization,
    role: user.role,
  };
  return { http, user: identity, ms: login.ms };
}

/** Registers and signs in one user per agency through the gateway. */
export async function signInAgencyUsers(base: string, tag: string): Promise<AgencyUser[]> {
  const users: AgencyUser[] = [];
  for (const agency of AGENCY_CODES) {
    const email = `bench-${tag}-${agency.toLowerCase()}@bench.nrad.local`;
    const password = randomBytes(12).toString('base64url');
    await new GatewayClient(base).expect(201, 'POST', '/api/auth/register', {
      name: `Bench ${agency} Officer`,
      email,
      password,
      role: 'Analyst',
      organization: agency,
    });
    const { http, user } = await signIn(base, email, password);
    users.push({ agency, user, http, email, password });
  }
  return users;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "FerretDB 1.24.2 (embedded, SQLite backend)", "MongoDB 7.0.14 at db.example:27017", ... */
export async function describeStore(db: mongo.Db, env: Record<string, string | undefined>): Promise<string> {
  const info = await db.admin().command({ buildInfo: 1 });
  const hostOf = (url: string) => /^[a-z+]+:\/\/(?:[^@/]*@)?([^/?]+)/i.exec(url)?.[1] ?? 'the given server';
  if (!env.MONGO_URL) {
    const goMod = readFileSync(path.join(FERRETDB_SOURCE_DIR, 'go.mod'), 'utf8');
    const version = /github\.com\/FerretDB\/FerretDB v(\S+)/.exec(goMod)?.[1] ?? '(unknown version)';
    const pg = env.FERRETDB_POSTGRESQL_URL;
    return `FerretDB ${version} (embedded, ${pg ? `PostgreSQL backend at ${hostOf(pg)}` : 'SQLite backend'})`;
  }
  if ('ferretdbVersion' in info) {
    const v = String(info.ferretdbVersion);
    return `FerretDB ${v === 'unknown' ? '' : `${v} `}at ${hostOf(env.MONGO_URL)} (wire version ${info.version})`;
  }
  return `MongoDB ${info.version} at ${hostOf(env.MONGO_URL)}`;
}

/** Refuses to run on collections that hold documents (a benchmark needs a scratch server). */
export async function requireEmpty(
  store: string,
  models: ReadonlyArray<{ collection: { name: string }; estimatedDocumentCount(): PromiseLike<number> }>,
): Promise<void> {
  const counts = await Promise.all(
    models.map(async (m) => [m.collection.name, await m.estimatedDocumentCount()] as const),
  );
  const taken = counts.filter(([, count]) => count > 0).map(([c, count]) => `${c}: ${count}`);
  if (taken.length) {
    throw new Error(
      `${store} already holds documents (${taken.join(', ')}); the benchmark needs empty collections (a scratch server)`,
    );
  }
}

export interface BenchSystem {
  /** The running system (another one after each `restart`). */
  readonly system: RunningSystem;
  /** The system's throwaway data directory (its secrets, its logs, the embedded stores' files). */
  dataDir: string;
  /** The gateway's URL (the same port after a restart). */
  base: string;
  /** Runs the measuring; a service that dies meanwhile ends it with that service's last output. */
  guard<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Stops every process of the system, as Ctrl-C of `npm start` does (the gateway, the services,
   * then the servers it started: FerretDB, NATS, Redis), and starts it again on the same data
   * directory and gateway port, timing both.
   */
  restart(): Promise<RestartTiming>;
}

export interface RestartTiming {
  /** From asking the system to stop until every process of it has exited. */
  stopMs: number;
  /** From starting again until the gateway answered /readyz (startSystem resolved). */
  readyMs: number;
  /**
   * Each part of the start as `startSystem` reports it (`onReady`): "local infrastructure" (the
   * servers), then each service and the gateway from its spawn to its first /readyz 200; the
   * services start together, so their times overlap.
   */
  steps: Array<{ name: string; ms: number }>;
}

/**
 * The gateway's per-user limits turned off (0 turns a limit off; issue 34). A benchmark asks one
 * path hundreds of times a minute as one user to time it, which is what the limits are there to
 * refuse; the load test (`bench:load`), whose users work at an officer's pace, keeps them on.
 */
export const LIMITS_OFF: Record<string, string> = {
  USER_LIMIT_NAMLC_CHECKS_PER_MINUTE: '0',
  USER_LIMIT_LINK_ATTEMPTS_PER_MINUTE: '0',
  USER_LIMIT_SEARCHES_PER_MINUTE: '0',
  USER_LIMIT_LIST_PAGES_PER_MINUTE: '0',
};

/**
 * Each agency's limits on uploads turned off with the gateway's (issue 37: jobs waiting at once,
 * MB a day): the load test's users upload dozens of files a minute per agency.
 */
export const UPLOAD_LIMITS_OFF: Record<string, string> = { INGEST_MAX_QUEUED_JOBS: '0', INGEST_MAX_MB_PER_DAY: '0' };

/**
 * Brings the whole system up as `npm start` does, from its bundles, in a throwaway data directory
 * with the gateway on a free port; both are undone by `cleanup`. `beforeServices` runs once the
 * stores are up and no service has started yet (on the first start only).
 */
export async function startBenchSystem(
  context: RunContext & {
    beforeServices?: (infra: RunningInfra) => Promise<void>;
    readyTimeoutMs?: number;
    /** More variables of a service by name (its settings as a benchmark wants them). */
    serviceEnv?: Record<string, Record<string, string>>;
    /**
     * The gateway's per-user limits and the agencies' upload limits: off (LIMITS_OFF,
     * UPLOAD_LIMITS_OFF; the default) or as `npm start` has them.
     */
    userLimits?: 'off' | 'default';
    /** How long each part of the first start took to get ready (SystemOptions.onReady). */
    onReady?: (part: string, ms: number) => void;
  },
): Promise<BenchSystem> {
  const { env, log, cleanup } = context;
  const serviceEnv = {
    ...context.serviceEnv,
    gateway: { ...(context.userLimits === 'default' ? {} : LIMITS_OFF), ...context.serviceEnv?.gateway },
    ingest: { ...(context.userLimits === 'default' ? {} : UPLOAD_LIMITS_OFF), ...context.serviceEnv?.ingest },
  };
  for (const entry of [...SERVICES.map((s) => s.entry), 'gateway/dist/main.js']) {
    if (!existsSync(path.join(REPO_ROOT, entry))) throw new Error(`${entry} is missing: run npm run build first`);
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nrad-bench-'));
  cleanup.add(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const options = (logLine: (line: string) => void) => ({
    dataDir,
    gatewayPort: port,
    gatewayHost: '127.0.0.1',
    adminEmail: env.ADMIN_EMAIL || 'admin@nrad.local',
    ...(env.LOG_LEVEL ? { logLevel: env.LOG_LEVEL } : {}),
    env,
    log: logLine,
    ...(context.readyTimeoutMs ? { readyTimeoutMs: context.readyTimeoutMs } : {}),
    serviceEnv,
  });
  let current = await startSystem({
    ...options((line) => log(`  ${line}`)),
    ...(context.beforeServices ? { beforeServices: context.beforeServices } : {}),
    ...(context.onReady ? { onReady: context.onReady } : {}),
  });
  cleanup.add(() => current.stop());

  // A crash of whichever system is current (not of one being stopped on purpose) ends the run.
  let reportCrash: (p: Awaited<RunningSystem['crashed']>) => void = () => {};
  const crashed = new Promise<Awaited<RunningSystem['crashed']>>((resolve) => {
    reportCrash = resolve;
  });
  const watch = (s: RunningSystem) => void s.crashed.then((p) => s === current && reportCrash(p));
  watch(current);

  return {
    get system() {
      return current;
    },
    dataDir,
    base: `http://127.0.0.1:${port}`,
    async guard<T>(work: () => Promise<T>): Promise<T> {
      let finished = false;
      const crash = crashed.then((p) => {
        if (!finished) throw new Error(`${p.name} stopped unexpectedly. Its last output:\n${p.tail()}`);
        return undefined as never;
      });
      crash.catch(() => {});
      const job = work();
      job.catch(() => {}); // when a crash wins the race, the run's own failure is not news
      try {
        return await Promise.race([job, crash]);
      } finally {
        finished = true;
      }
    },
    async restart(): Promise<RestartTiming> {
      const stopped = performance.now();
      await current.stop();
      const stopMs = performance.now() - stopped;
      const steps: RestartTiming['steps'] = [];
      const started = performance.now();
      const next = await startSystem({
        ...options((line) => log(`    ${line}`)),
        onReady: (name, ms) => steps.push({ name, ms }),
      });
      const readyMs = performance.now() - started;
      current = next;
      watch(next);
      return { stopMs, readyMs, steps };
    },
  };
}
