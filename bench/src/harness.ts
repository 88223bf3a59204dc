import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AGENCY_CODES, type Agency, TOTAL_COUNT_HEADER, type UserIdentity } from '@nrad/contracts';
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
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    const res = await fetch(`${this.base}${pathname}`, { method, headers, ...(payload ? { body: payload } : {}) });
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

  /** A call that must answer `status`; `total` is its X-Total-Count when it has one. */
  async expect(status: number, method: string, pathname: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.call(method, pathname, body, headers);
    if (res.status !== status) {
      throw new Error(`${method} ${pathname} answered ${res.status} (expected ${status}): ${res.text.slice(0, 500)}`);
    }
    const total = res.headers.get(TOTAL_COUNT_HEADER);
    return { ms: res.ms, text: res.text, ...(total === null ? {} : { total: Number(total) }) };
  }
}

/** One agency's user, signed in through the gateway. */
export interface AgencyUser {
  agency: Agency;
  user: UserIdentity;
  http: GatewayClient;
}

/** Registers and signs in one user per agency through the gateway. */
export async function signInAgencyUsers(base: string, tag: string): Promise<AgencyUser[]> {
  const users: AgencyUser[] = [];
  for (const agency of AGENCY_CODES) {
    const http = new GatewayClient(base);
    const email = `bench-${tag}-${agency.toLowerCase()}@bench.nrad.local`;
    const password = randomBytes(12).toString('base64url');
    await http.expect(201, 'POST', '/api/auth/register', {
      name: `Bench ${agency} Officer`,
      email,
      password,
      role: 'Analyst',
      organization: agency,
    });
    const login = await http.expect(200, 'POST', '/api/auth/login', { email, password });
    const { user } = JSON.parse(login.text) as {
      user: { id: string; name: string; organization: Agency; role: string };
    };
    users.push({
      agency,
      user: { kind: 'user', userId: user.id, name: user.name, organization: user.organization, role: user.role },
      http,
    });
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

export interface BenchSystem {
  system: RunningSystem;
  /** The system's throwaway data directory (its secrets, its logs, the embedded stores' files). */
  dataDir: string;
  /** The gateway's URL. */
  base: string;
  /** Runs the measuring; a service that dies meanwhile ends it with that service's last output. */
  guard<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Brings the whole system up as `npm start` does, from its bundles, in a throwaway data directory
 * with the gateway on a free port; both are undone by `cleanup`. `beforeServices` runs once the
 * stores are up and no service has started yet.
 */
export async function startBenchSystem(
  context: RunContext & { beforeServices?: (infra: RunningInfra) => Promise<void>; readyTimeoutMs?: number },
): Promise<BenchSystem> {
  const { env, log, cleanup } = context;
  for (const entry of [...SERVICES.map((s) => s.entry), 'gateway/dist/main.js']) {
    if (!existsSync(path.join(REPO_ROOT, entry))) throw new Error(`${entry} is missing: run npm run build first`);
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nrad-bench-'));
  cleanup.add(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const system = await startSystem({
    dataDir,
    gatewayPort: port,
    gatewayHost: '127.0.0.1',
    adminEmail: env.ADMIN_EMAIL || 'admin@nrad.local',
    ...(env.LOG_LEVEL ? { logLevel: env.LOG_LEVEL } : {}),
    env,
    log: (line) => log(`  ${line}`),
    ...(context.beforeServices ? { beforeServices: context.beforeServices } : {}),
    ...(context.readyTimeoutMs ? { readyTimeoutMs: context.readyTimeoutMs } : {}),
  });
  cleanup.add(() => system.stop());
  return {
    system,
    dataDir,
    base: `http://127.0.0.1:${port}`,
    async guard<T>(work: () => Promise<T>): Promise<T> {
      let finished = false;
      const crashed = system.crashed.then((p) => {
        if (!finished) throw new Error(`${p.name} stopped unexpectedly. Its last output:\n${p.tail()}`);
        return undefined as never;
      });
      crashed.catch(() => {});
      const job = work();
      job.catch(() => {}); // when a crash wins the race, the run's own failure is not news
      try {
        return await Promise.race([job, crashed]);
      } finally {
        finished = true;
      }
    },
  };
}
