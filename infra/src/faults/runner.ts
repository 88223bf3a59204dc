/**
 * The fault suite (issue 21): the whole system as `npm start` runs it (from its bundles, on a fresh
 * data directory of its own), a client creating records and an upload running, while each part is
 * killed in turn with SIGKILL and started again; afterwards every count is compared with a direct
 * count in the stores. See `runFaultSuite`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { REPO_ROOT } from '../paths.ts';
import { freePort } from '../ports.ts';
import { type RunningSystem, SERVICES, startSystem } from '../system.ts';
import { plan, type RecordBody, workbookOf } from './data.ts';
import { type Answer, describe, expectStatus, GatewayClient } from './http.ts';
import { DB, type MongoClient, Stores } from './stores.ts';

/**
 * The parts killed, in this order: the issue's, but for the ingest worker, which comes second so
 * that it dies in the middle of the upload's job. In the issue's order (after linking and stats)
 * the 10,000-row job had ended before the worker's turn in both full runs measured (the job takes
 * 16-19 s after the records service's kill; restarting and readying records, linking and stats
 * took 17-19 s): its kill would test nothing. Killed second, the job then waits for its lock to
 * lapse (30 s) while NATS, Redis and FerretDB are killed, and resumes afterwards.
 */
export const KILL_ORDER = ['records', 'ingest', 'linking', 'stats', 'nats', 'redis', 'ferretdb'] as const;

export interface FaultSuiteOptions {
  /** Records the client creates one by one. */
  creates: number;
  /** Rows of the uploaded workbook (1 in 100 invalid on purpose). */
  uploadRows: number;
  /** Where progress and the report go, line by line. */
  log: (line: string) => void;
  /** LOG_LEVEL of the services (default info). */
  logLevel?: string;
  /** Creates in flight at once (default 4). */
  concurrency?: number;
  /** The parts killed, in order (default KILL_ORDER). */
  parts?: readonly string[];
  /** How long a killed part stays down before it is started again (default 1.5 s). */
  downMs?: number;
  /** Least time between a part being ready again and the next kill (default 1 s). */
  gapMs?: number;
  /** How long the system may take to settle once the work is done (default 10 min). */
  settleTimeoutMs?: number;
  /**
   * More variables of a service by name (default none: each service as `npm start` runs it). The
   * test in `npm test` shortens the ingest job's lock (INGEST_LOCK_MS) to fit its time budget.
   */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Keep the data directory (logs/ included) afterwards: always, never, or when a check fails (default). */
  keepData?: 'always' | 'never' | 'on-failure';
}

/** One kill: when, which process, and how the part came back. */
export interface Kill {
  part: string;
  /** Seconds from the start of the work. */
  at: number;
  pid: number | undefined;
  newPid: number | undefined;
  /** From asking for the restart until the part was ready again, ms. */
  readyMs: number;
  /** What was running at the time (creates acknowledged, upload rows processed). */
  during: string;
}

export interface Check {
  check: string;
  expected: string | number;
  found: string | number;
  ok: boolean;
  /** Examples of what differs (at most a few), for the report. */
  detail?: string[];
}

export interface FaultReport {
  ok: boolean;
  checks: Check[];
  kills: Kill[];
  /** Seconds: the work with its faults, then the wait for the system to settle. */
  workSeconds: number;
  settleSeconds: number;
  dataDir: string;
  dataKept: boolean;
  creates: number;
  uploadRows: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bundles the system runs; the suite needs them built (`npm run build`). */
export function missingBundles(): string[] {
  return [...SERVICES.map((s) => s.entry), 'gateway/dist/main.js', 'services/audit/dist/verify.js'].filter(
    (entry) => !existsSync(path.join(REPO_ROOT, entry)),
  );
}

/** A signed-in user of the gateway who signs in again when the session is gone (401). */
class User {
  readonly http: GatewayClient;
  /** Sign-ins after the first one (a lost session). */
  signInsAgain = 0;
  /** Sign-ins answered 200 (each must be in the audit trail once). */
  signedIn = 0;

  constructor(
    base: string,
    readonly email: string,
    readonly password: string,
  ) {
    this.http = new GatewayClient(base);
  }

  async signIn(): Promise<void> {
    await expectStatus(
      200,
      this.http.post('/api/auth/login', { email: this.email, password: this.password }),
      `sign-in of ${this.email}`,
    );
    this.signedIn++;
  }

  /** A call, signed in again (and repeated) when the gateway says the session is gone. */
  async call(method: string, pathname: string, body?: unknown): Promise<Answer> {
    const a = await this.http.call(method, pathname, body);
    if (a.status !== 401) return a;
    this.signInsAgain++;
    const again = await this.http.post('/api/auth/login', { email: this.email, password: this.password });
    if (again.status !== 200) return a;
    this.signedIn++;
    return this.http.call(method, pathname, body);
  }
}

/** Whether an answer means "not done, try again": no answer, a 5xx, a 408 or 429. */
const retryable = (a: Answer) => a.status === 0 || a.status >= 500 || a.status === 408 || a.status === 429;

/**
 * A create as a careful client makes it: sent again with the same incident number until it is
 * answered 201 (created now) or 409 INCIDENT_NUMBER_TAKEN (an earlier attempt stored it: its id is
 * then looked up by incident number). Resolves the record's id and how it was acknowledged.
 */
async function createUntilAcknowledged(
  user: User,
  body: RecordBody,
  deadline: number,
): Promise<{ id: string; via: 201 | 409; attempts: number }> {
  for (let attempt = 1, wait = 200; ; attempt++, wait = Math.min(wait * 2, 2000)) {
    const a = await user.call('POST', '/api/records', body);
    if (a.status === 201) return { id: String(a.body.id), via: 201, attempts: attempt };
    if (a.status === 409 && a.body?.code === 'INCIDENT_NUMBER_TAKEN') {
      return { id: await lookUp(user, body.incidentNumber, deadline), via: 409, attempts: attempt };
    }
    if (!retryable(a)) throw new Error(`create ${body.incidentNumber}: ${describe(a)}`);
    if (Date.now() > deadline)
      throw new Error(`create ${body.incidentNumber} not acknowledged in time: ${describe(a)}`);
    await sleep(wait);
  }
}

/** The id of the caller's record with this incident number (a search, retried until answered). */
async function lookUp(user: User, incidentNumber: string, deadline: number): Promise<string> {
  for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
    const a = await user.call('POST', '/api/records/search', { incidentNumber });
    if (a.status === 200) {
      const hit = (a.body as Array<{ id: string; incidentNumber: string }>).find(
        (r) => r.incidentNumber === incidentNumber,
      );
      if (hit) return hit.id;
      throw new Error(`409 for ${incidentNumber}, but a search by it finds no record of the caller's`);
    }
    if (!retryable(a)) throw new Error(`search ${incidentNumber}: ${describe(a)}`);
    if (Date.now() > deadline) throw new Error(`search ${incidentNumber} not answered in time: ${describe(a)}`);
    await sleep(wait);
  }
}

/** Runs `work` over `items`, `concurrency` at a time, in order of taking. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i] as T, i);
    }),
  );
}

/** The state of the upload as the client last read it. */
interface UploadState {
  jobIds: string[];
  state: string;
  processedRows: number;
  totalRows: number;
  // biome-ignore lint/suspicious/noExplicitAny: the job's result as the API answers it
  result?: any;
  /** Uploads sent again because the first was not taken. */
  resent: number;
}

/**
 * Uploads the workbook as FIA (`?async=1`), sending it again only when the gateway says the upload
 * was not taken (no answer at all, or 503: the ingest service was not reachable), then follows the
 * job until it completes or fails.
 */
async function upload(user: User, file: Uint8Array, state: UploadState, deadline: number, accepted: () => void) {
  for (let wait = 500; ; wait = Math.min(wait * 2, 4000)) {
    const form = new FormData();
    form.append('file', new Blob([file]), 'fault-suite.xlsx');
    const a = await user.call('POST', '/api/records/batch-upload?async=1', form);
    if (a.status === 202) {
      state.jobIds.push(String(a.body.jobId));
      break;
    }
    if (a.status !== 0 && a.status !== 503) throw new Error(`the upload was refused: ${describe(a)}`);
    if (Date.now() > deadline) throw new Error(`the upload was not taken in time: ${describe(a)}`);
    state.resent++;
    await sleep(wait);
  }
  accepted();
  const jobId = state.jobIds.at(-1) as string;
  for (;;) {
    const a = await user.call('GET', `/api/ingest/jobs/${jobId}`);
    if (a.status === 200) {
      Object.assign(state, {
        state: a.body.state,
        processedRows: a.body.processedRows,
        totalRows: a.body.totalRows,
        result: a.body.result,
      });
      if (a.body.state === 'completed' || a.body.state === 'failed') return;
    } else if (!retryable(a)) {
      throw new Error(`GET /api/ingest/jobs/${jobId}: ${describe(a)}`);
    }
    if (Date.now() > deadline) throw new Error(`the upload job did not end in time (${state.state})`);
    await sleep(500);
  }
}

/**
 * Where the upload's job is, as the killer sees it by peeking at the stores every 50 ms: whether
 * it is active in BullMQ (the `ingest` queue's active list, as the ingest service names it by
 * default) and since when, and whether an import request is half done in the records service (its
 * import outbox holds a document of the last 20 s: the request stored its events and is inserting
 * its records).
 * Unknown (false, 0) while a store does not answer.
 */
class JobWatch {
  private readonly redis: Redis;
  private readonly mongo: MongoClient;
  private since = 0;
  private importing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(urls: { redisUrl: string; mongoUrl: string }, jobId: () => string | undefined) {
    this.redis = new Redis(urls.redisUrl, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 200,
    });
    this.redis.on('error', () => {});
    this.mongo = new mongoose.mongo.MongoClient(urls.mongoUrl, { serverSelectionTimeoutMS: 1000 });
    const imports = this.mongo.db(DB.records).collection('import_events');
    let busy = false;
    this.timer = setInterval(() => {
      const id = jobId();
      if (busy || !id) return;
      busy = true;
      const active = this.redis.lrange('bull:ingest:active', 0, -1).then(
        (ids) => {
          if (!ids.includes(id)) this.since = 0;
          else if (this.since === 0) this.since = performance.now();
        },
        () => {
          this.since = 0;
        },
      );
      const importing = imports
        .countDocuments({ createdAt: { $gt: new Date(Date.now() - 20_000) } }, { limit: 1 })
        .then(
          (n) => {
            this.importing = n > 0;
          },
          () => {
            this.importing = false;
          },
        );
      void Promise.all([active, importing]).finally(() => {
        busy = false;
      });
    }, 50);
  }

  /** How long the job has been active, ms (0: not active, or not known). */
  activeFor(): number {
    return this.since === 0 ? 0 : performance.now() - this.since;
  }

  /** Whether an import request is half done (its events stored, its records being inserted). */
  importInFlight(): boolean {
    return this.importing;
  }

  stop(): void {
    clearInterval(this.timer);
    this.redis.disconnect();
    void this.mongo.close().catch(() => undefined);
  }
}

/** Seconds with one decimal. */
const s1 = (ms: number) => (ms / 1000).toFixed(1);

/**
 * Runs the suite and returns its report (`formatReport` prints it); every check is a count. The
 * data directory is removed afterwards unless `keepData` says otherwise (its logs/ hold each
 * process's log).
 */
export async function runFaultSuite(options: FaultSuiteOptions): Promise<FaultReport> {
  const { log } = options;
  const concurrency = options.concurrency ?? 4;
  const parts = options.parts ?? KILL_ORDER;
  const downMs = options.downMs ?? 1500;
  const gapMs = options.gapMs ?? 1000;
  const missing = missingBundles();
  if (missing.length) throw new Error(`${missing.join(', ')} missing: run npm run build first`);

  const p = plan(options.creates, options.uploadRows);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'nrad-faults-'));
  const port = await freePort();
  log(`Data directory: ${dataDir}`);
  log('Starting the system (as npm start runs it, on servers of its own)...');
  const adminPassword = `Fault-${Math.random().toString(36).slice(2)}-admin`;
  const system = await startSystem({
    dataDir,
    gatewayPort: port,
    gatewayHost: '127.0.0.1',
    adminEmail: 'admin@nrad.local',
    adminPassword,
    logLevel: options.logLevel ?? 'info',
    env: {},
    log: (line) => log(`  ${line}`),
    ...(options.serviceEnv ? { serviceEnv: options.serviceEnv } : {}),
  });
  let report: FaultReport | undefined;
  try {
    report = await exercise(system, `http://127.0.0.1:${port}`, adminPassword, p, {
      ...options,
      concurrency,
      parts,
      downMs,
      gapMs,
      dataDir,
    });
    return report;
  } finally {
    log('Stopping the system...');
    await system.stop();
    const keep = options.keepData ?? 'on-failure';
    const kept = keep === 'always' || (keep === 'on-failure' && !report?.ok);
    if (kept) log(`Kept the data directory (logs in ${path.join(dataDir, 'logs')})`);
    else rmSync(dataDir, { recursive: true, force: true });
    if (report) report.dataKept = kept;
  }
}

async function exercise(
  system: RunningSystem,
  base: string,
  adminPassword: string,
  p: ReturnType<typeof plan>,
  o: FaultSuiteOptions & {
    concurrency: number;
    parts: readonly string[];
    downMs: number;
    gapMs: number;
    dataDir: string;
  },
): Promise<FaultReport> {
  const { log } = o;
  for (const part of o.parts) {
    if (!system.parts.includes(part))
      throw new Error(`${part} is not a part of the system (${system.parts.join(', ')})`);
  }
  // ADMIN and one user per agency, through the gateway as any user.
  const admin = new User(base, 'admin@nrad.local', adminPassword);
  await admin.signIn();
  const users: Record<'BPS' | 'FIA' | 'CUS', User> = {} as Record<'BPS' | 'FIA' | 'CUS', User>;
  for (const organization of ['BPS', 'FIA', 'CUS'] as const) {
    const email = `faults.${organization.toLowerCase()}@nrad.local`;
    const password = `${organization}-fault-suite-pw`;
    const anon = new GatewayClient(base);
    await expectStatus(
      201,
      anon.post('/api/auth/register', {
        name: `${organization} Fault Officer`,
        email,
        password,
        role: 'Analyst',
        organization,
      }),
      `registration of ${email}`,
    );
    const user = new User(base, email, password);
    await user.signIn();
    users[organization] = user;
  }

  // The counterparts first (customs), so that the creates and rows matching them must be linked.
  const seedDeadline = Date.now() + 10 * 60_000;
  log(`Creating ${p.seeds.length} counterpart records as CUS (same name and date of birth as a create or row)...`);
  const seedIds: string[] = [];
  await pool(p.seeds, o.concurrency, async (seed, k) => {
    seedIds[k] = (await createUntilAcknowledged(users.CUS, seed.body, seedDeadline)).id;
  });
  const template = await users.FIA.http.download('/api/records/template');
  const file = workbookOf(template, p.rows);
  log(
    `Workbook: ${p.rows.length.toLocaleString('en-US')} rows, ${p.invalidRows.size} invalid on purpose, ${(file.length / 1024).toFixed(0)} KB`,
  );

  // The work: the creates (BPS), the upload (FIA), and the killer, at once.
  const started = performance.now();
  const t = () => `t+${s1(performance.now() - started)}s`;
  const workDeadline = Date.now() + 30 * 60_000;
  const acknowledged: Array<{ id: string; via: 201 | 409; attempts: number } | undefined> = [];
  let acknowledgedCount = 0;
  const uploadState: UploadState = { jobIds: [], state: 'sending', processedRows: 0, totalRows: 0, resent: 0 };
  let uploadAccepted: () => void = () => {};
  const accepted = new Promise<void>((resolve) => {
    uploadAccepted = resolve;
  });
  const progress = () =>
    `creates ${acknowledgedCount}/${p.creates.length}, upload ${uploadState.state} ${uploadState.processedRows}/${uploadState.totalRows || p.rows.length} rows`;
  log(`${t()} work starts: ${p.creates.length} creates as BPS (${o.concurrency} at a time), the upload as FIA`);

  // The creates and the kills are spread over each other: the creates fall into parts + 1 equal
  // runs; kill k comes once half of run k is acknowledged (so creates are in flight when the part
  // goes down), and run k + 1 starts once kill k has come (so creates are sent while it is down).
  // On a fast machine the kills hold the creates back; on a slow one the creates pace the kills.
  const runs = o.parts.length + 1;
  const runOf = (i: number) => Math.floor((i * runs) / p.creates.length);
  let killsStarted = 0;
  const creating = pool(p.creates, o.concurrency, async (body, i) => {
    while (killsStarted < runOf(i)) await sleep(20);
    acknowledged[i] = await createUntilAcknowledged(users.BPS, body, workDeadline);
    acknowledgedCount++;
  });
  const uploading = upload(users.FIA, file, uploadState, workDeadline, uploadAccepted);
  const ticker = setInterval(() => log(`${t()} ${progress()}`), 5000);

  // The killer: each part in turn, at least `gapMs` after the one before was ready again, once
  // half of its run of creates is acknowledged. While the upload's job runs, the parts up to the
  // ingest worker go as soon as they may (the job must still be running when the worker is
  // killed), and the records service and the worker are killed only while the job is active in
  // BullMQ (an import request in flight), unless the job has ended by then.
  const kills: Kill[] = [];
  const watch = new JobWatch(system.infra, () => uploadState.jobIds.at(-1));
  const jobEnded = () => uploadState.state === 'completed' || uploadState.state === 'failed';
  const ingestAt = o.parts.indexOf('ingest');
  const killing = (async () => {
    await accepted;
    let lastReady = performance.now();
    for (const [k, part] of o.parts.entries()) {
      const half = Math.floor(((k + 0.5) * p.creates.length) / runs);
      const hurry = () => k <= ingestAt && !jobEnded();
      while ((acknowledgedCount < half && !hurry()) || performance.now() - lastReady < o.gapMs) await sleep(20);
      // The records service in the middle of an import request (the worst moment for its import
      // outbox), the worker in the middle of its job; each as far as the job lets it.
      const until = Date.now() + 120_000;
      if (part === 'records') {
        while (!jobEnded() && !watch.importInFlight() && Date.now() < until) await sleep(10);
      } else if (part === 'ingest') {
        while (!jobEnded() && watch.activeFor() < 1000 && Date.now() < until) await sleep(20);
      }
      const job =
        part === 'records' && watch.importInFlight()
          ? 'an import request half done'
          : watch.activeFor() > 0
            ? 'job active'
            : 'job waiting';
      const during = `${progress()}${jobEnded() ? '' : ` (${job})`}`;
      const at = performance.now() - started;
      killsStarted++;
      const { pid } = await system.kill(part);
      log(`${t()} killed ${part} (pid ${pid}) during ${during}`);
      await sleep(o.downMs);
      const restarting = performance.now();
      const { pid: newPid } = await system.restart(part);
      const readyMs = performance.now() - restarting;
      lastReady = performance.now();
      log(`${t()} restarted ${part} (pid ${newPid}), ready after ${s1(readyMs)}s`);
      kills.push({ part, at: at / 1000, pid, newPid, readyMs, during });
    }
  })().finally(() => {
    killsStarted = Number.POSITIVE_INFINITY; // the creates go on whatever became of the killer
    watch.stop();
  });

  const outcome = await Promise.allSettled([creating, uploading, killing]);
  clearInterval(ticker);
  const workSeconds = (performance.now() - started) / 1000;
  for (const r of outcome) if (r.status === 'rejected') log(`${t()} the work failed: ${(r.reason as Error).message}`);
  log(`${t()} work done: ${progress()}`);
  const failures = outcome.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));

  // Settling: the job ended; every event relayed, every consumer caught up, every spool empty,
  // the counts still. Then each service must be ready (nobody restarted anything by hand).
  const stores = await Stores.open(system.infra);
  try {
    const settling = performance.now();
    const settleDeadline = Date.now() + (o.settleTimeoutMs ?? 10 * 60_000);
    let pending: string[] = [];
    let last = '';
    let stillFor = 0;
    log(`${t()} waiting for the system to settle...`);
    for (let round = 0; ; round++) {
      pending = await stores.pending().catch((err: Error) => [`the stores did not answer: ${err.message}`]);
      const print = await stores.fingerprint().catch(() => 'unknown');
      stillFor = pending.length === 0 && print === last ? stillFor + 1 : 0;
      last = print;
      if (stillFor >= 2) break;
      if (Date.now() > settleDeadline) break;
      if (round % 15 === 14) log(`${t()} still settling: ${pending.join('; ') || 'counts still moving'}`);
      await sleep(1000);
    }
    const settleSeconds = (performance.now() - settling) / 1000;
    log(`${t()} ${pending.length === 0 ? 'settled' : 'did not settle'} after ${s1(settleSeconds * 1000)}s`);
    const notReady = await unreadyParts(system, base);

    const checks = await compare({ system, stores, p, seedIds, acknowledged, uploadState, admin, users, failures });
    checks.unshift(
      {
        check: 'settled (events relayed, consumers caught up, spools empty)',
        expected: 'yes',
        found: pending.length ? 'no' : 'yes',
        ok: pending.length === 0,
        detail: pending.slice(0, 5),
      },
      {
        check: 'parts killed and restarted',
        expected: o.parts.join(', '),
        found: kills.map((k) => k.part).join(', '),
        ok: kills.length === o.parts.length,
      },
      {
        check: 'services ready at the end without a manual step',
        expected: 'all',
        found: notReady.length ? `not ready: ${notReady.join(', ')}` : 'all',
        ok: notReady.length === 0,
      },
    );
    const ok = checks.every((c) => c.ok);
    return {
      ok,
      checks,
      kills,
      workSeconds,
      settleSeconds,
      dataDir: o.dataDir,
      dataKept: false,
      creates: p.creates.length,
      uploadRows: p.rows.length,
    };
  } finally {
    await stores.close();
  }
}

/** The services and the gateway not answering /readyz 200 within 60 s of asking. */
async function unreadyParts(system: RunningSystem, base: string): Promise<string[]> {
  const urls = { ...system.services, gateway: base };
  const deadline = Date.now() + 60_000;
  const notReady = new Set(Object.keys(urls));
  while (notReady.size && Date.now() < deadline) {
    for (const name of [...notReady]) {
      const res = await fetch(`${urls[name as keyof typeof urls]}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(
        () => undefined,
      );
      if (res?.ok) notReady.delete(name);
    }
    if (notReady.size) await sleep(1000);
  }
  return [...notReady];
}

/** Ids named more than once / not at all, as "check" rows. */
function exactlyOnce(
  check: string,
  expectedIds: readonly string[],
  counts: ReadonlyMap<string, number>,
  label: (id: string) => string = (id) => id,
): Check {
  const missing = expectedIds.filter((id) => !counts.get(id));
  const doubled = expectedIds.filter((id) => (counts.get(id) ?? 0) > 1);
  const once = expectedIds.length - missing.length - doubled.length;
  return {
    check,
    expected: expectedIds.length,
    found: once,
    ok: once === expectedIds.length,
    detail: [
      ...missing.slice(0, 5).map((id) => `missing: ${label(id)}`),
      ...doubled.slice(0, 5).map((id) => `${counts.get(id)} times: ${label(id)}`),
      ...(missing.length + doubled.length > 10
        ? [`(${missing.length} missing, ${doubled.length} more than once)`]
        : []),
    ],
  };
}

const countBy = <T>(items: readonly T[], key: (item: T) => string | string[]) => {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    for (const one of Array.isArray(k) ? k : [k]) counts.set(one, (counts.get(one) ?? 0) + 1);
  }
  return counts;
};

async function compare(c: {
  system: RunningSystem;
  stores: Stores;
  p: ReturnType<typeof plan>;
  seedIds: string[];
  acknowledged: Array<{ id: string; via: 201 | 409; attempts: number } | undefined>;
  uploadState: UploadState;
  admin: User;
  users: Record<'BPS' | 'FIA' | 'CUS', User>;
  failures: string[];
}): Promise<Check[]> {
  const { stores, p, acknowledged, uploadState } = c;
  const checks: Check[] = [];
  checks.push({
    check: 'the client and the upload ended without an error',
    expected: 'none',
    found: c.failures.length ? `${c.failures.length} errors` : 'none',
    ok: c.failures.length === 0,
    detail: c.failures.slice(0, 5),
  });

  const records = await stores.records();
  const byKey = new Map<string, typeof records>();
  for (const r of records) byKey.set(r.incidentKey, [...(byKey.get(r.incidentKey) ?? []), r]);
  const stored = (incidentNumber: string) => byKey.get(incidentNumber.toUpperCase()) ?? [];

  // Acknowledged creates: each incident number stored exactly once, under the id acknowledged.
  const acks = p.creates.flatMap((body, i) => {
    const a = acknowledged[i];
    return a ? [{ body, ...a }] : [];
  });
  checks.push({
    check: 'creates acknowledged (201, or 409 of an earlier attempt)',
    expected: p.creates.length,
    found: acks.length,
    ok: acks.length === p.creates.length,
    detail: [
      `${acks.filter((a) => a.via === 409).length} by a 409 after an unanswered attempt`,
      `${acks.filter((a) => a.attempts > 1).length} needed more than one attempt`,
    ],
  });
  const createCounts = new Map(acks.map((a) => [a.body.incidentNumber, stored(a.body.incidentNumber).length]));
  checks.push(
    exactlyOnce(
      'acknowledged creates stored exactly once (by incident number)',
      acks.map((a) => a.body.incidentNumber),
      createCounts,
    ),
  );
  const wrongId = acks.filter((a) => {
    const s = stored(a.body.incidentNumber);
    return s.length === 1 && s[0]?._id.toHexString() !== a.id;
  });
  checks.push({
    check: 'acknowledged creates stored under the id answered',
    expected: acks.length,
    found: acks.length - wrongId.length,
    ok: wrongId.length === 0,
    detail: wrongId.slice(0, 5).map((a) => `${a.body.incidentNumber}: answered ${a.id}`),
  });

  // The upload: each valid row once, no invalid row, the job's figures equal to the direct counts.
  const validRows = p.rows.filter((_, r) => !p.invalidRows.has(r));
  const invalidRows = p.rows.filter((_, r) => p.invalidRows.has(r));
  checks.push(
    exactlyOnce(
      'valid upload rows stored exactly once (by incident number)',
      validRows.map((b) => b.incidentNumber),
      new Map(validRows.map((b) => [b.incidentNumber, stored(b.incidentNumber).length])),
    ),
  );
  const invalidStored = invalidRows.filter((b) => stored(b.incidentNumber).length > 0);
  checks.push({
    check: 'invalid upload rows stored',
    expected: 0,
    found: invalidStored.length,
    ok: invalidStored.length === 0,
    detail: invalidStored.slice(0, 5).map((b) => b.incidentNumber),
  });
  const result = uploadState.result as
    | { totalRecords: number; successfulRecords: number; errors: Array<{ row: number }> }
    | undefined;
  const directCreated = p.rows.filter((b) => stored(b.incidentNumber).length > 0).length;
  checks.push({
    check: `the upload job completed (${uploadState.jobIds.length} job${uploadState.jobIds.length === 1 ? '' : 's'})`,
    expected: 'completed',
    found: uploadState.state,
    ok: uploadState.state === 'completed',
    detail: uploadState.resent
      ? [`sent ${uploadState.resent + 1} times: the gateway said the first was not taken`]
      : [],
  });
  checks.push({
    check: "the job's created rows = records stored from the file",
    expected: directCreated,
    found: result?.successfulRecords ?? 'no result',
    ok: result?.successfulRecords === directCreated,
  });
  const errorRows = new Set((result?.errors ?? []).map((e) => e.row));
  const directInvalid = p.rows.length - directCreated;
  checks.push({
    check: "the job's rows with errors = rows not stored",
    expected: directInvalid,
    found: result ? errorRows.size : 'no result',
    ok: result !== undefined && errorRows.size === directInvalid && result.totalRecords === p.rows.length,
    detail: result ? [`job total ${result.totalRecords} of ${p.rows.length} rows`] : [],
  });

  // Statistics: the dashboard (ADMIN's and each agency's) and the admin counts equal to a direct count.
  const active = records.filter((r) => !r.deleted);
  const direct = {
    ALL: active.length,
    BPS: active.filter((r) => r.organization === 'BPS').length,
    FIA: active.filter((r) => r.organization === 'FIA').length,
    CUS: active.filter((r) => r.organization === 'CUS').length,
  };
  const internationalDirect = active.filter((r) => r.internationalNexus).length;
  const adminStats = await c.admin.call('GET', '/api/stats');
  checks.push({
    check: 'GET /api/stats as ADMIN: totalRecords = active records',
    expected: direct.ALL,
    found: adminStats.status === 200 ? adminStats.body.totalRecords : describe(adminStats),
    ok: adminStats.status === 200 && adminStats.body.totalRecords === direct.ALL,
  });
  checks.push({
    check: 'GET /api/stats as ADMIN: internationalCases = active records with a nexus',
    expected: internationalDirect,
    found: adminStats.status === 200 ? adminStats.body.internationalCases : describe(adminStats),
    ok: adminStats.status === 200 && adminStats.body.internationalCases === internationalDirect,
  });
  for (const organization of ['BPS', 'FIA', 'CUS'] as const) {
    const a = await c.users[organization].call('GET', '/api/stats');
    checks.push({
      check: `GET /api/stats as ${organization}: totalRecords = its active records`,
      expected: direct[organization],
      found: a.status === 200 ? a.body.totalRecords : describe(a),
      ok: a.status === 200 && a.body.totalRecords === direct[organization],
    });
  }
  const perAgency = await c.admin.call('GET', '/api/admin/stats');
  const found = perAgency.status === 200 ? perAgency.body : undefined;
  checks.push({
    check: 'GET /api/admin/stats: each agency = its active records',
    expected: `BPS ${direct.BPS}, FIA ${direct.FIA}, CUS ${direct.CUS}`,
    found: found ? `BPS ${found.bpsRecords}, FIA ${found.fiaRecords}, CUS ${found.cusRecords}` : describe(perAgency),
    ok: found?.bpsRecords === direct.BPS && found?.fiaRecords === direct.FIA && found?.cusRecords === direct.CUS,
  });

  // Auto-links: each expected pair linked exactly once, nothing else linked.
  const idOf = (incidentNumber: string) => stored(incidentNumber)[0]?._id.toHexString();
  const pairs = p.seeds.flatMap((seed, k) => {
    const other = seed.of.kind === 'create' ? p.creates[seed.of.index] : p.rows[seed.of.index];
    const a = c.seedIds[k];
    const b = other ? idOf(other.incidentNumber) : undefined;
    return a && b
      ? [
          {
            key: [a, b].sort().join(':'),
            seed: a,
            other: b,
            label: `${seed.body.incidentNumber} ~ ${other?.incidentNumber}`,
          },
        ]
      : [];
  });
  const links = await stores.links();
  const linkCounts = countBy(links, (l) => l.pairKey);
  const labels = new Map(pairs.map((x) => [x.key, x.label]));
  checks.push(
    exactlyOnce(
      `expected auto-links stored exactly once (${pairs.length} of ${p.seeds.length} pairs both stored)`,
      pairs.map((x) => x.key),
      linkCounts,
      (key) => labels.get(key) ?? key,
    ),
  );
  const expectedKeys = new Set(pairs.map((x) => x.key));
  const extra = links.filter((l) => !expectedKeys.has(l.pairKey));
  const doubledPairs = [...linkCounts].filter(([, n]) => n > 1);
  checks.push({
    check: 'links in the linking store: none other, no pair twice',
    expected: pairs.length,
    found: links.length,
    ok: extra.length === 0 && doubledPairs.length === 0 && links.length === pairs.length,
    detail: [
      ...extra.slice(0, 3).map((l) => `unexpected: ${l.pairKey}`),
      ...doubledPairs.slice(0, 3).map(([k, n]) => `${n} times: ${k}`),
    ],
  });
  // Each link as the records' users see it: GET /api/records/{id}/links of the counterpart (CUS).
  let seen = 0;
  const unseen: string[] = [];
  for (const x of pairs) {
    const a = await c.users.CUS.call('GET', `/api/records/${x.seed}/links`);
    const hits =
      a.status === 200 ? (a.body as Array<{ linkedRecordId: string }>).filter((l) => l.linkedRecordId === x.other) : [];
    if (hits.length === 1) seen++;
    else unseen.push(`${x.label}: ${a.status === 200 ? `${hits.length} links` : describe(a)}`);
  }
  checks.push({
    check: 'GET /api/records/{id}/links shows each expected link once',
    expected: pairs.length,
    found: seen,
    ok: seen === pairs.length,
    detail: unseen.slice(0, 5),
  });
  // The Linked flag (the records service's consumer of links.created): both records of each pair.
  const orgOf = new Map(records.map((r) => [r._id.toHexString(), r]));
  const flagged = pairs.filter((x) => {
    const a = orgOf.get(x.seed);
    const b = orgOf.get(x.other);
    return (
      a &&
      b &&
      (a.linkedOrganizations ?? []).includes(b.organization) &&
      (b.linkedOrganizations ?? []).includes(a.organization)
    );
  });
  checks.push({
    check: 'the Linked flag on both records of each expected pair',
    expected: pairs.length,
    found: flagged.length,
    ok: flagged.length === pairs.length,
  });

  // Audit: each record created (acknowledged creates, counterparts, upload rows) named by exactly
  // one record.create entry; each link by exactly one link.create entry (its id: link-<id>).
  const creates = await stores.auditEntries('record.create');
  const createNamed = countBy(creates, (e) => e.recordIds);
  const createdIds = [
    ...acks.map((a) => a.id),
    ...c.seedIds.filter(Boolean),
    ...p.rows.flatMap((b) => stored(b.incidentNumber).map((r) => r._id.toHexString())),
  ];
  checks.push(
    exactlyOnce(
      'records created (client, counterparts, upload) named by exactly one record.create audit entry',
      createdIds,
      createNamed,
      (id) => `${id} (${orgOf.get(id)?.incidentNumber ?? '?'})`,
    ),
  );
  const createdSet = new Set(createdIds);
  const otherCreates = [...createNamed.keys()].filter((id) => !createdSet.has(id));
  checks.push({
    check: 'record.create audit entries naming a record not created',
    expected: 0,
    found: otherCreates.length,
    ok: otherCreates.length === 0,
    detail: otherCreates.slice(0, 5),
  });
  const linkEntries = countBy(await stores.auditEntries('link.create'), (e) => e.eventId);
  checks.push(
    exactlyOnce(
      'links named by exactly one link.create audit entry',
      links.map((l) => `link-${l._id.toHexString()}`),
      linkEntries,
    ),
  );
  // The upload: accepted once; its completion names each record it created once.
  const uploads = (await stores.auditEntries('upload')).filter((e) =>
    uploadState.jobIds.includes(String(e.detail?.jobId)),
  );
  const accepted = uploads.filter((e) => e.detail?.what === 'accepted');
  checks.push({
    check: 'the upload named by exactly one upload accepted audit entry per job sent',
    expected: uploadState.jobIds.length,
    found: accepted.length,
    ok: accepted.length === uploadState.jobIds.length,
  });
  const uploadIds = p.rows.flatMap((b) => stored(b.incidentNumber).map((r) => r._id.toHexString()));
  checks.push(
    exactlyOnce(
      "the upload's records named by exactly one upload completed audit entry",
      uploadIds,
      countBy(
        uploads.filter((e) => e.detail?.what === 'completed'),
        (e) => e.recordIds,
      ),
    ),
  );
  // Every sign-in the client made (answered 200), once: the gateway's events travel through its
  // Redis spool while NATS is down, and Redis is killed too.
  const signIns = (await stores.auditEntries('sign-in')).length;
  const signedIn = [c.admin, ...Object.values(c.users)].reduce((n, u) => n + u.signedIn, 0);
  checks.push({
    check: 'sign-ins answered 200 = sign-in audit entries',
    expected: signedIn,
    found: signIns,
    ok: signIns === signedIn,
  });
  const verify = spawnSync(process.execPath, [path.join(REPO_ROOT, 'services/audit/dist/verify.js')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, MONGO_URL: c.system.infra.mongoUrl, MONGO_DB: 'nrad_audit', LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
  const verdict = `${verify.stdout}${verify.stderr}`.trim().split('\n').at(-1) ?? '';
  checks.push({
    check: 'audit:verify (the hash chain)',
    expected: 'the chain holds',
    found: verify.status === 0 && /the chain holds/.test(verify.stdout) ? 'the chain holds' : `exit ${verify.status}`,
    ok: verify.status === 0 && /the chain holds/.test(verify.stdout),
    detail: [verdict],
  });

  // Nothing needed a hand: no process exited but the killed ones; no user had to sign in again.
  const crashes = c.system.exits.filter((e) => !e.expected);
  checks.push({
    check: 'processes that exited without being killed',
    expected: 0,
    found: crashes.length,
    ok: crashes.length === 0,
    detail: crashes.map(
      (e) => `${e.name} (pid ${e.pid}) exited ${e.signal ?? `with code ${e.code}`} at ${e.at.toISOString()}`,
    ),
  });
  const signInsAgain = [c.admin, ...Object.values(c.users)].reduce((n, u) => n + u.signInsAgain, 0);
  checks.push({
    check: 'sessions lost (a user had to sign in again)',
    expected: 0,
    found: signInsAgain,
    ok: signInsAgain === 0,
  });
  return checks;
}

/** The report as text: the kills, then `check | expected | found | ok`. */
export function formatReport(r: FaultReport): string {
  const lines = [
    `Fault suite: ${r.creates.toLocaleString('en-US')} creates, an upload of ${r.uploadRows.toLocaleString('en-US')} rows; work ${r.workSeconds.toFixed(1)} s, settling ${r.settleSeconds.toFixed(1)} s`,
    '',
    'Killed (SIGKILL) and restarted:',
    ...r.kills.map(
      (k) =>
        `  t+${k.at.toFixed(1)}s ${k.part.padEnd(8)} pid ${k.pid} → ${k.newPid}, ready after ${(k.readyMs / 1000).toFixed(1)} s  (during ${k.during})`,
    ),
    '',
  ];
  const rows = [
    ['check', 'expected', 'found', 'ok'],
    ...r.checks.map((c) => [c.check, String(c.expected), String(c.found), c.ok ? 'ok' : 'FAIL']),
  ];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => (row[i] as string).length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join(' | ')
      .trimEnd();
  lines.push(line(rows[0] as string[]), widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const [i, c] of r.checks.entries()) {
    lines.push(line(rows[i + 1] as string[]));
    for (const d of (c.detail ?? []).filter(Boolean)) lines.push(`    ${d}`);
  }
  lines.push('', r.ok ? 'All checks passed.' : 'FAILED: see the rows marked FAIL.');
  if (r.dataKept) lines.push(`Data and logs kept in ${r.dataDir}`);
  return lines.join('\n');
}
