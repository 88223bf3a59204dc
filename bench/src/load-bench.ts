/**
 * The load test (issue 21, item 3): the whole system as `npm start` runs it, N records seeded into
 * the records collection, the linking service's match index and the stats read model before the
 * services start, then `users` agency users (spread over BPS, FIA and CUS) and a few ADMIN sessions,
 * each signed in through the gateway with a session of its own, driving a mix of the screens'
 * requests for `seconds` through autocannon (one connection per user, one request at a time, a
 * think time between an answer and the user's next request). Each answer is timed per operation;
 * every non-2xx/3xx answer, timeout and connection error is counted per operation.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  AGENCY_CODES,
  type Agency,
  type IngestJob,
  NAMLC_AGENCY,
  NAMLC_ORGANIZATIONS,
  NEXT_CURSOR_HEADER,
  type RecordInput,
} from '@nrad/contracts';
import { type RunContext, sleep, startBenchSystem } from './harness.ts';
import { cpuSeconds, type Machine, machine, ms, percentile, table } from './report.ts';
import { NAME_VARIATIONS, Random, recordBody, unknownName } from './seed.ts';
import { type SeededAgency, type Seeding, seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores, servicesWriter } from './stores.ts';
import { uploadFile } from './upload-file.ts';

export { Cleanup } from './harness.ts';

// --- autocannon ------------------------------------------------------------------------------
// autocannon 9 ships no types; these are the parts of its in-process API (and of its connection,
// lib/httpClient.js) this run uses.

interface CannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (request: CannonRequest, context: object) => CannonRequest;
  onResponse?: (status: number, body: string, context: object, headers: Record<string, string | string[]>) => void;
}

/** One autocannon connection: one simulated user's browser. */
interface CannonClient {
  setRequests(requests: CannonRequest[]): void;
  on(event: 'response', listener: (status: number, bytes: number, ms: number) => void): void;
  on(event: 'timeout', listener: () => void): void;
  on(event: 'connError', listener: (error: Error) => void): void;
  destroyed: boolean;
  /** Sends the next request (after an answer, at connect and after a reconnect). */
  _doRequest(): void;
  /** Closes the connection and opens a new one (which sends the next request). */
  _resetConnection(): void;
  timeoutTicker: { reschedule(ms: number): void };
  pipelinedRequests: { clear(): void };
}

interface CannonResult {
  /** Seconds from the start to the end of the run. */
  duration: number;
  start: Date;
  finish: Date;
}

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  timeout: number;
  requests: CannonRequest[];
  setupClient: (client: CannonClient) => void;
}) => Promise<CannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const AUTOCANNON_VERSION = (
  createRequire(import.meta.url)('autocannon/package.json') as {
    version: string;
  }
).version;

// --- the mix ---------------------------------------------------------------------------------

export type Kind = 'read' | 'write';

export interface Operation {
  name: string;
  kind: Kind;
  /** Percent of an agency user's requests (of an ADMIN session's, for the admin rows). */
  share: number;
  /** What is sent. */
  request: string;
  admin?: boolean;
}

/** Rows of a record upload's .xlsx. */
export const UPLOAD_ROWS = 50;

/**
 * What each simulated user asks for, as the screens ask it: the Dashboard's two figures requests,
 * the Records list (100 rows a page, as the screens show them) and its Show more, Record Details,
 * the Search screen, the NAMLC match check, the record form (create, edit), a batch upload and a
 * report. The ADMIN sessions read the Admin Panel.
 */
export const LOAD_OPERATIONS: readonly Operation[] = [
  { name: 'dashboard figures', kind: 'read', share: 12, request: 'GET /api/stats' },
  { name: 'dashboard countries', kind: 'read', share: 8, request: 'GET /api/stats/countries' },
  { name: 'list', kind: 'read', share: 15, request: 'GET /api/records?limit=100' },
  { name: 'list, Show more', kind: 'read', share: 5, request: "GET /api/records?limit=100&cursor= (the last page's)" },
  { name: 'details', kind: 'read', share: 25, request: 'GET /api/records/{id} (its agency’s, or its own)' },
  {
    name: 'search by name',
    kind: 'read',
    share: 10,
    request: 'POST /api/records/search {suspectName} (a variation of a name)',
  },
  { name: 'search free text', kind: 'read', share: 5, request: 'POST /api/records/search {freeText} (a surname)' },
  {
    name: 'match check',
    kind: 'read',
    share: 8,
    request: 'POST /api/records/check-namlc-matches (half known suspects, half made up)',
  },
  { name: 'create', kind: 'write', share: 6, request: 'POST /api/records' },
  { name: 'edit', kind: 'write', share: 5.5, request: 'PUT /api/records/{id} with If-Match' },
  {
    name: 'upload',
    kind: 'write',
    share: 0.2,
    request: `POST /api/records/batch-upload?async=1 (${UPLOAD_ROWS}-row .xlsx) → 202`,
  },
  { name: 'report', kind: 'write', share: 0.3, request: 'POST /api/generate-report (until written)' },
  { name: 'admin dashboard', kind: 'read', share: 60, request: 'GET /api/admin/stats', admin: true },
  { name: 'admin list', kind: 'read', share: 40, request: 'GET /api/admin/records?limit=25', admin: true },
];
type OperationName = string;

/** Targets of issue 21: p99 of every read ≤ 300 ms, of every write ≤ 500 ms, and no errors. */
export const TARGET_P99_MS: Record<Kind, number> = { read: 300, write: 500 };

/**
 * A connection idle this long is replaced before the next request: the gateway closes connections
 * idle for 5 s (server.keepAliveTimeout), and a request sent as it closes would fail for that alone.
 */
const IDLE_CONNECTION_MS = 4000;
/** An answer slower than this is a timeout (autocannon drops the connection and reconnects). */
const REQUEST_TIMEOUT_S = 30;
/** Loading the seeded records (the linking index, the stats states) takes minutes. */
const READY_TIMEOUT_MS = 15 * 60_000;
/** How long the uploads' jobs may take to finish after the run. */
const JOBS_TIMEOUT_MS = 10 * 60_000;
/** Sign-ins (registration and login hash passwords) made at once. */
const SIGN_IN_CONCURRENCY = 4;

// --- options and report ----------------------------------------------------------------------

export interface LoadBenchOptions extends RunContext {
  /** Agency users (spread over BPS, FIA and CUS). */
  users: number;
  /** ADMIN sessions (the one ADMIN account signed in from that many browsers). */
  admins: number;
  seconds: number;
  /**
   * Seconds the users run the mix before the measured `seconds` begin (caches, JIT and connections
   * warm, the users' requests spread out), as a system that has been up a while serves them; what
   * they ask then is reported apart, and its errors count.
   */
  warmup: number;
  /** Records seeded before the services start, spread over the agencies. */
  records: number;
  /** Mean think time (ms): each user waits 0.5–1.5 times this after an answer. 0: none. */
  think: number;
  seed: number;
  /** Other shares than LOAD_OPERATIONS' by operation name (a test's mix that reaches every operation). */
  shares?: Record<string, number>;
  /**
   * The gateway's per-user limits (issue 34): as `npm start` has them (the default: an officer's
   * pace stays well under them), or off (a test's users asking without think time).
   */
  userLimits?: 'default' | 'off';
}

export interface OperationFigures {
  name: string;
  kind: Kind;
  share: number;
  request: string;
  admin: boolean;
  /** Answered requests (any status). */
  requests: number;
  perSecond: number;
  /** Of the answered requests, ms; nearest rank. */
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Answers other than 2xx/3xx, by status. */
  statuses: Record<string, number>;
  httpErrors: number;
  timeouts: number;
  connectionErrors: number;
  /** Sent but unanswered when the run ended (not errors). */
  cutAtEnd: number;
}

export interface ServiceRoute {
  service: string;
  route: string;
  requests: number;
  p50: number;
  p99: number;
}

/** A service's Node.js runtime during the measured run (its Prometheus metrics, prom-client's defaults). */
export interface ServiceRuntime {
  service: string;
  /** The longest and the 99th-percentile event-loop delay, ms (since the measured run began). */
  loopDelayMax: number;
  loopDelayP99: number;
  /** Major (mark-compact) collections during the run: how many, their total and mean pause, ms. */
  majorGcs: number;
  majorGcMs: number;
  /** Every collection's pause during the run, ms. */
  gcMs: number;
  /** Scavenges (young generation) and incremental marking steps: how many, their pauses, ms. */
  minorGcs: number;
  minorGcMs: number;
  incrementalGcMs: number;
  /** Heap used at the end, MB. */
  heapMb: number;
}

export interface LoadReport {
  machine: Machine;
  store: string;
  records: number;
  perAgency: Record<string, number>;
  seeding: Seeding;
  /** Records in the store after the run and the uploads' jobs. */
  recordsAtEnd: number;
  users: Record<string, number>;
  admins: number;
  think: number;
  seconds: number;
  /** What the warm-up asked: its seconds, answers (all operations together) and errors. */
  warmup: {
    seconds: number;
    requests: number;
    p50: number;
    p99: number;
    max: number;
    errors: number;
    /** Answered requests by operation. */
    operations: Record<string, number>;
  };
  autocannon: string;
  reportModel: string;
  operations: OperationFigures[];
  /** Connection errors on a connection with no request sent yet. */
  idleConnectionErrors: number;
  uploads: { jobs: number; completed: number; rows: number; created: number; refusedRows: number };
  /** CPU seconds each process used during the measured run. */
  cpu: Array<{ name: string; seconds: number }>;
  /** Each service's own handling time (its access log) of the paths the mix asked for. */
  services: ServiceRoute[];
  /** Each service's event loop and garbage collector during the run. */
  runtimes: ServiceRuntime[];
  signInSeconds: number;
  notes: string[];
  totalSeconds: number;
  loadAtEnd: number;
}

// --- the simulated users ---------------------------------------------------------------------

interface Editable {
  id: string;
  body: Record<string, unknown>;
  version: number;
}

interface Pending {
  op: OperationName;
  /** Written to the connection (the first request is built before it is sent). */
  sent?: boolean;
  /** When it was written (performance.now()): before the measured run began, it was warm-up. */
  sentAt?: number;
  status?: number;
  body?: string;
  headers?: Record<string, string | string[]>;
  /** Runs on a 2xx answer. */
  done?: (body: string, headers: Record<string, string | string[]>) => void;
}

interface Counters {
  samples: number[];
  statuses: Map<number, number>;
  timeouts: number;
  connectionErrors: number;
  cutAtEnd: number;
  /** The first answers of each error status, for the notes. */
  examples: Map<number, string>;
}

/** The warm-up's figures from its counters: every operation's answers together, and its errors. */
function warmupOf(counters: Map<OperationName, Counters>): Omit<LoadReport['warmup'], 'seconds'> {
  const all = [...counters.values()];
  const sorted = all.flatMap((c) => c.samples).sort((a, b) => a - b);
  const httpErrors = (c: Counters) => [...c.statuses.values()].reduce((a, b) => a + b, 0);
  return {
    requests: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    errors: all.reduce((n, c) => n + httpErrors(c) + c.timeouts + c.connectionErrors, 0),
    operations: Object.fromEntries([...counters].map(([op, c]) => [op, c.samples.length])),
  };
}

const header = (headers: Record<string, string | string[]>, name: string): string | undefined => {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
};
const versionOf = (etag: string | undefined, fallback: number) => {
  const m = /"?(\d+)"?/.exec(etag ?? '');
  return m ? Number(m[1]) : fallback;
};

/** The agency's share of the seeded records, as every user of it sees them. */
interface AgencyData {
  agency: Agency;
  ids: string[];
  samples: Array<RecordInput & { id: string }>;
}

const MULTIPART_BOUNDARY = `----nrad-load-${randomBytes(8).toString('hex')}`;

function multipartFile(file: Uint8Array, name: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n',
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${MULTIPART_BOUNDARY}--\r\n`),
  ]);
}

const AGENCY_OF_NAMLC = Object.fromEntries(
  NAMLC_ORGANIZATIONS.map((org) => [NAMLC_AGENCY[org], org] as const),
) as Record<Agency, (typeof NAMLC_ORGANIZATIONS)[number]>;

/** One simulated user: its session, what it knows, the request it has in flight. */
class SimUser {
  pending: Pending | undefined;
  private cursor: string | undefined;
  private readonly own: Editable[] = [];
  private made = 0;
  readonly uploads: string[] = [];
  private readonly mix: Array<{ op: Operation; upTo: number }>;

  constructor(
    readonly index: number,
    readonly organization: Agency | 'ADMIN',
    readonly cookie: string,
    private readonly origin: string,
    private readonly rng: Random,
    private readonly tag: string,
    private readonly data: AgencyData | undefined,
    private readonly everyAgency: AgencyData[],
    /** Seeded records only this user edits (so no two users race for one: no 409 of the bench's making). */
    private readonly editable: Editable[],
    operations: readonly Operation[],
  ) {
    const ops = operations.filter((o) => !!o.admin === (organization === 'ADMIN') && o.share > 0);
    const total = ops.reduce((sum, o) => sum + o.share, 0);
    let upTo = 0;
    this.mix = ops.map((op) => {
      upTo += op.share / total;
      return { op, upTo };
    });
  }

  private choose(): Operation {
    const r = this.rng.next();
    return (this.mix.find((m) => r < m.upTo) ?? this.mix.at(-1))?.op as Operation;
  }

  private headers(write: boolean, type?: string): Record<string, string> {
    return {
      accept: 'application/json',
      cookie: this.cookie,
      ...(write ? { origin: this.origin } : {}),
      ...(type ? { 'content-type': type } : {}),
    };
  }

  private json(method: string, path: string, body: unknown): CannonRequest {
    return { method, path, headers: this.headers(true, 'application/json'), body: JSON.stringify(body) };
  }

  /** The next request: an operation drawn from the mix, built for this user. */
  next(): CannonRequest {
    let op = this.choose();
    // Show more follows the cursor of the user's last list; before any, it is a first page.
    if (op.name === 'list, Show more' && !this.cursor) op = byName('list');
    const pending: Pending = { op: op.name };
    this.pending = pending;
    const data = this.data;
    switch (op.name) {
      case 'dashboard figures':
        return { method: 'GET', path: '/api/stats', headers: this.headers(false) };
      case 'dashboard countries':
        return { method: 'GET', path: '/api/stats/countries', headers: this.headers(false) };
      case 'list':
      case 'list, Show more': {
        const cursor = op.name === 'list' ? '' : `&cursor=${encodeURIComponent(this.cursor as string)}`;
        pending.done = (_body, headers) => {
          this.cursor = header(headers, NEXT_CURSOR_HEADER);
        };
        return { method: 'GET', path: `/api/records?limit=100${cursor}`, headers: this.headers(false) };
      }
      case 'details': {
        const own = this.own.length && this.rng.chance(0.2) ? this.rng.pick(this.own).id : undefined;
        const id = own ?? this.rng.pick((data as AgencyData).ids);
        return { method: 'GET', path: `/api/records/${id}`, headers: this.headers(false) };
      }
      case 'search by name': {
        const sample = this.rng.pick((data as AgencyData).samples);
        const variation = this.rng.pick(NAME_VARIATIONS);
        return this.json('POST', '/api/records/search?limit=100', {
          suspectName: variation.apply(this.rng, sample.suspectName),
        });
      }
      case 'search free text': {
        const sample = this.rng.pick((data as AgencyData).samples);
        return this.json('POST', '/api/records/search?limit=100', {
          freeText: sample.suspectName.split(' ').at(-1),
        });
      }
      case 'match check': {
        const agency = this.rng.pick(this.everyAgency);
        const sample = this.rng.pick(agency.samples);
        const known = this.rng.chance(0.5);
        return this.json('POST', '/api/records/check-namlc-matches', {
          namlcOrganization: AGENCY_OF_NAMLC[agency.agency],
          suspectName: known
            ? this.rng.pick(NAME_VARIATIONS).apply(this.rng, sample.suspectName)
            : unknownName(this.rng),
          suspectDob: sample.suspectDob,
          incidentDate: sample.incidentDate,
          caseAmount: sample.caseAmount,
        });
      }
      case 'create': {
        const body = recordBody(
          this.rng,
          (data as AgencyData).agency,
          `L${this.tag}-${this.index}-${++this.made}`,
          new Date(),
        );
        pending.done = (text, headers) => {
          const { id } = JSON.parse(text) as { id: string };
          this.own.push({ id, body, version: versionOf(header(headers, 'etag'), 1) });
        };
        return this.json('POST', '/api/records', body);
      }
      case 'edit': {
        const pool = this.own.length && this.rng.chance(0.5) ? this.own : this.editable;
        const target = this.rng.pick(pool.length ? pool : this.editable);
        const body = { ...target.body, additionalInfo: `Reviewed (${++this.made}).` };
        pending.done = (_text, headers) => {
          target.version = versionOf(header(headers, 'etag'), target.version + 1);
          target.body = body;
        };
        const request = this.json('PUT', `/api/records/${target.id}`, body);
        return { ...request, headers: { ...request.headers, 'if-match': `"${target.version}"` } };
      }
      case 'upload': {
        const agency = (data as AgencyData).agency;
        const now = new Date();
        const upload = ++this.made;
        const file = uploadFile(
          Array.from({ length: UPLOAD_ROWS }, (_, k) =>
            recordBody(this.rng, agency, `U${this.tag}-${this.index}-${upload}-${k + 1}`, now),
          ),
        );
        pending.done = (text) => {
          this.uploads.push((JSON.parse(text) as { jobId: string }).jobId);
        };
        return {
          method: 'POST',
          path: '/api/records/batch-upload?async=1',
          headers: this.headers(true, `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`),
          body: multipartFile(file, `load-${this.index}-${upload}.xlsx`),
        };
      }
      case 'report':
        return this.json('POST', '/api/generate-report', {
          parameters: 'Overview of the last quarter: totals, crime types, international cases.',
        });
      case 'admin dashboard':
        return { method: 'GET', path: '/api/admin/stats', headers: this.headers(false) };
      case 'admin list':
        return { method: 'GET', path: '/api/admin/records?limit=25', headers: this.headers(false) };
      default:
        throw new Error(`no request for ${op.name}`);
    }
  }
}

function byName(name: string): Operation {
  const op = LOAD_OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`unknown operation ${name}`);
  return op;
}

// --- signing in --------------------------------------------------------------------------------

/**
 * A JSON POST to the gateway from `localAddress` (a loopback address of its own per user, as each
 * officer's browser has its own network address: registrations are limited per address and hour).
 */
function postFrom(
  base: string,
  pathname: string,
  body: unknown,
  localAddress: string,
): Promise<{ status: number; text: string; cookie: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method: 'POST',
        localAddress,
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          origin: base,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const cookie = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
          resolve({ status: res.statusCode ?? 0, text, cookie });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `127.0.<2+>.<1–250>`: the user's own loopback address. */
const addressOf = (i: number) => `127.0.${2 + Math.floor(i / 250)}.${1 + (i % 250)}`;

async function signInAs(base: string, email: string, password: string, from: string): Promise<string> {
  const login = await postFrom(base, '/api/auth/login', { email, password }, from);
  if (login.status !== 200 || !login.cookie) {
    throw new Error(`signing in ${email} answered ${login.status}: ${login.text.slice(0, 300)}`);
  }
  return login.cookie;
}

async function registerAndSignIn(base: string, tag: string, i: number, agency: Agency): Promise<string> {
  const from = addressOf(i);
  const email = `load-${tag}-${i}-${agency.toLowerCase()}@bench.nrad.local`;
  const password = randomBytes(12).toString('base64url');
  const reg = await postFrom(
    base,
    '/api/auth/register',
    { name: `Load ${agency} Officer ${i + 1}`, email, password, role: 'Analyst', organization: agency },
    from,
  );
  if (reg.status !== 201) throw new Error(`registering ${email} answered ${reg.status}: ${reg.text.slice(0, 300)}`);
  return signInAs(base, email, password, from);
}

/** Runs `work` for 0..count-1, `concurrency` at a time, in order of start. */
async function inParallel<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

// --- measuring -------------------------------------------------------------------------------

/** A service's metrics (Prometheus text) as name{labels} → value; undefined when it did not answer. */
async function scrape(url: string): Promise<Map<string, number> | undefined> {
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return undefined;
    const values = new Map<string, number>();
    for (const line of (await res.text()).split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const at = line.lastIndexOf(' ');
      // The service label is the same on every line of one service: left out of the key.
      const key = line
        .slice(0, at)
        .replace(/service="[^"]*",?/, '')
        .replace(/,}$/, '}')
        .replace('{}', '');
      values.set(key, Number(line.slice(at + 1)));
    }
    return values;
  } catch {
    return undefined;
  }
}

/** The runtime figures of each service from its metrics at the start and the end of the run. */
function runtimesOf(
  before: Map<string, Map<string, number> | undefined>,
  after: Map<string, Map<string, number> | undefined>,
): ServiceRuntime[] {
  const rows: ServiceRuntime[] = [];
  for (const [service, end] of after) {
    const start = before.get(service);
    if (!end || !start) continue;
    const delta = (key: string) => (end.get(key) ?? 0) - (start.get(key) ?? 0);
    const sumOf = (kind: string) => delta(`nodejs_gc_duration_seconds_sum{kind="${kind}"}`);
    const kinds = ['major', 'minor', 'incremental', 'weakcb'];
    rows.push({
      service,
      // prom-client resets its event-loop histogram at every scrape: the end's figures are the run's.
      loopDelayMax: (end.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
      loopDelayP99: (end.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
      majorGcs: delta('nodejs_gc_duration_seconds_count{kind="major"}'),
      majorGcMs: sumOf('major') * 1000,
      gcMs: kinds.reduce((n, k) => n + sumOf(k), 0) * 1000,
      minorGcs: delta('nodejs_gc_duration_seconds_count{kind="minor"}'),
      minorGcMs: sumOf('minor') * 1000,
      incrementalGcMs: sumOf('incremental') * 1000,
      heapMb: (end.get('nodejs_heap_size_used_bytes') ?? Number.NaN) / 2 ** 20,
    });
  }
  return rows.sort((a, b) => b.loopDelayMax - a.loopDelayMax);
}

/** The services' access logs ("request" lines) within [from, to]: per service and route, its own time. */
function serviceTimes(logsDir: string, services: string[], from: number, to: number): ServiceRoute[] {
  const rows: ServiceRoute[] = [];
  for (const service of services) {
    const file = path.join(logsDir, `${service}.log`);
    if (!existsSync(file)) continue;
    const byRoute = new Map<string, number[]>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"msg":"request"')) continue;
      let entry: { time?: number; method?: string; path?: string; ms?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        continue;
      }
      if (!entry.time || entry.time < from || entry.time > to || entry.ms === undefined) continue;
      if (!entry.path?.startsWith('/api/') && !entry.path?.startsWith('/internal/')) continue;
      const route = `${entry.method} ${entry.path.replace(/\/[0-9a-f]{24}(?=\/|$)/g, '/{id}').replace(/\/jobs\/[^/]+$/, '/jobs/{id}')}`;
      const list = byRoute.get(route) ?? [];
      byRoute.set(route, list);
      list.push(entry.ms);
    }
    for (const [route, samples] of byRoute) {
      samples.sort((a, b) => a - b);
      rows.push({
        service,
        route,
        requests: samples.length,
        p50: percentile(samples, 50),
        p99: percentile(samples, 99),
      });
    }
  }
  return rows.sort((a, b) => a.service.localeCompare(b.service) || b.requests - a.requests);
}

export async function runLoadBench(options: LoadBenchOptions): Promise<LoadReport> {
  const { log, cleanup } = options;
  const started = performance.now();
  const host = machine();
  const rng = new Random(options.seed);
  const tag = Date.now().toString(36);
  const owners = unsignedOwners();
  const notes: string[] = [];
  let seeding: Seeding | undefined;
  let stores: ServiceStores | undefined;

  const seedStores = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, options.env);
    stores = s;
    cleanup.add(() => s.conn.close());
    log(`Store: ${s.name}`);
    log(
      `Seeding ${options.records.toLocaleString('en-US')} records into records, the linking index and the stats read model...`,
    );
    const writer = servicesWriter(s);
    seeding = await seedRecords(owners, options.records, rng, log, (docs) => writer.write(docs));
    await writer.finish();
  };

  // Reports are written from the template (no model): the figures are NRAD's, not a model's.
  const env = { ...options.env };
  for (const name of Object.keys(env)) if (name.startsWith('OPENAI_')) delete env[name];
  const { system, base, guard } = await startBenchSystem({
    ...options,
    env,
    userLimits: options.userLimits ?? 'default',
    beforeServices: seedStores,
    readyTimeoutMs: READY_TIMEOUT_MS,
  });
  return guard(async (): Promise<LoadReport> => {
    if (!seeding || !stores) throw new Error('the stores were not seeded');
    const s = stores;

    // Every user's agency data, the samples to edit split between the agency's users.
    const agencyData = owners.map((o: SeededAgency) => ({ agency: o.agency, ids: o.ids, samples: o.samples }));
    const usersOf = (agency: Agency) =>
      Array.from({ length: options.users }, (_, i) => i).filter((i) => AGENCY_CODES[i % AGENCY_CODES.length] === agency)
        .length;

    log(`Registering and signing in ${options.users} agency users and ${options.admins} ADMIN sessions...`);
    const signInStarted = performance.now();
    const cookies = await inParallel(options.users, SIGN_IN_CONCURRENCY, (i) =>
      registerAndSignIn(base, tag, i, AGENCY_CODES[i % AGENCY_CODES.length] as Agency),
    );
    const adminCookies = await inParallel(options.admins, SIGN_IN_CONCURRENCY, () =>
      signInAs(base, system.admin.email, system.admin.password, '127.0.0.1'),
    );
    const signInSeconds = (performance.now() - signInStarted) / 1000;
    log(`  signed in in ${signInSeconds.toFixed(1)} s`);

    const mix = LOAD_OPERATIONS.map((o) => ({ ...o, share: options.shares?.[o.name] ?? o.share }));
    const sims: SimUser[] = [];
    for (const [i, cookie] of cookies.entries()) {
      const agency = AGENCY_CODES[i % AGENCY_CODES.length] as Agency;
      const data = agencyData.find((d) => d.agency === agency) as AgencyData;
      const nth = Math.floor(i / AGENCY_CODES.length);
      const share = usersOf(agency);
      const editable = data.samples
        .filter((_, k) => k % share === nth)
        .map(({ id, ...input }) => ({ id, body: input as Record<string, unknown>, version: 1 }));
      sims.push(
        new SimUser(
          i,
          agency,
          cookie,
          base,
          new Random(options.seed * 7919 + i + 1),
          tag,
          data,
          agencyData,
          editable,
          mix,
        ),
      );
    }
    for (const [k, cookie] of adminCookies.entries()) {
      const i = options.users + k;
      sims.push(
        new SimUser(
          i,
          'ADMIN',
          cookie,
          base,
          new Random(options.seed * 7919 + i + 1),
          tag,
          undefined,
          agencyData,
          [],
          mix,
        ),
      );
    }

    const newCounters = () =>
      new Map<OperationName, Counters>(
        LOAD_OPERATIONS.map((o) => [
          o.name,
          { samples: [], statuses: new Map(), timeouts: 0, connectionErrors: 0, cutAtEnd: 0, examples: new Map() },
        ]),
      );
    // The measured run's counters, and the warm-up's apart: a request sent before the measured run
    // began is the warm-up's, whenever it is answered.
    const counters = newCounters();
    const warmCounters = newCounters();
    let measureFrom = Number.POSITIVE_INFINITY;
    const counterOf = (op: OperationName, sentAt = measureFrom) =>
      (sentAt < measureFrom ? warmCounters : counters).get(op) as Counters;
    let idleConnectionErrors = 0;
    let answered = 0;
    let failed = 0;

    const think = () => (options.think > 0 ? options.think * (0.5 + Math.random()) : 0);
    const timeoutMs = REQUEST_TIMEOUT_S * 1000;
    let nextSim = 0;
    const setupClient = (client: CannonClient) => {
      const sim = sims[nextSim++] as SimUser;
      client.setRequests([
        {
          // autocannon's request (host, port) with this user's next request on it.
          setupRequest: (request) => ({ ...request, ...sim.next() }),
          onResponse: (status, body, _context, headers) => {
            if (sim.pending) Object.assign(sim.pending, { status, body, headers });
          },
        },
      ]);
      client.on('response', (status, _bytes, took) => {
        const pending = sim.pending;
        sim.pending = undefined;
        if (!pending) return;
        answered++;
        const c = counterOf(pending.op, pending.sentAt);
        c.samples.push(took);
        if (status >= 200 && status < 400) {
          try {
            pending.done?.(pending.body ?? '', pending.headers ?? {});
          } catch (err) {
            notes.push(`${pending.op}: could not read its answer: ${(err as Error).message}`);
          }
        } else {
          failed++;
          c.statuses.set(status, (c.statuses.get(status) ?? 0) + 1);
          if (!c.examples.has(status)) c.examples.set(status, (pending.body ?? '').slice(0, 200));
        }
      });
      /** A request lost to a timeout or a broken connection; one not sent yet stays to be sent. */
      const lost = (what: 'timeouts' | 'connectionErrors') => {
        const pending = sim.pending;
        client.pipelinedRequests.clear();
        failed++;
        if (pending?.sent) {
          sim.pending = undefined;
          counterOf(pending.op, pending.sentAt)[what]++;
        } else idleConnectionErrors++;
      };
      client.on('timeout', () => lost('timeouts'));
      client.on('connError', () => lost('connectionErrors'));
      // A user waits between an answer and its next request (autocannon itself sends at once).
      const original = client._doRequest.bind(client);
      const send = () => {
        original();
        if (sim.pending) Object.assign(sim.pending, { sent: true, sentAt: performance.now() });
      };
      let scheduled = false;
      let reconnecting = false;
      client._doRequest = () => {
        if (reconnecting) return send();
        if (scheduled || client.destroyed) return;
        scheduled = true;
        const wait = think();
        client.timeoutTicker.reschedule(wait + timeoutMs);
        setTimeout(() => {
          scheduled = false;
          if (client.destroyed) return;
          // Sent and still unanswered: its connection was closed under it (and reopened). Counted, forgotten.
          if (sim.pending?.sent) lost('connectionErrors');
          if (wait < IDLE_CONNECTION_MS) return send();
          // After a long wait the gateway may be closing the idle connection just as the request
          // goes out (a browser sends such a request again); a new connection carries it instead.
          reconnecting = true;
          try {
            client._resetConnection();
          } finally {
            reconnecting = false;
          }
        }, wait);
      };
    };

    const pids = Object.entries(system.pids);
    // What the processes used is read when the measured run begins (after the warm-up).
    let cpuBefore = new Map<string, number | undefined>();
    let ownBefore = process.cpuUsage();
    let runFrom = Date.now();
    const scrapeAll = async () =>
      new Map(
        await Promise.all(
          Object.entries(system.services).map(async ([name, url]) => [name, await scrape(url)] as const),
        ),
      );
    let metricsBefore: Promise<Map<string, Map<string, number> | undefined>> = Promise.resolve(new Map());
    const measure = () => {
      measureFrom = performance.now();
      runFrom = Date.now();
      cpuBefore = new Map(pids.map(([name, pid]) => [name, cpuSeconds(pid)]));
      ownBefore = process.cpuUsage();
      metricsBefore = scrapeAll();
      if (options.warmup > 0) {
        const { requests, errors } = warmupOf(warmCounters);
        log(`  warm-up done: ${requests.toLocaleString('en-US')} answered, ${errors} errors; measuring`);
      }
    };
    log(
      `Running the mix for ${options.warmup} s of warm-up, then ${options.seconds} s measured: ${sims.length} connections (autocannon ${AUTOCANNON_VERSION}), think time ${options.think} ms on average...`,
    );
    const progress = setInterval(() => {
      const seconds = (performance.now() - runStarted) / 1000;
      log(
        `  ${seconds.toFixed(0)} s: ${answered.toLocaleString('en-US')} answered (${(answered / seconds).toFixed(1)}/s), ${failed} errors`,
      );
    }, 30_000);
    const runStarted = performance.now();
    const measuring = options.warmup > 0 ? setTimeout(measure, options.warmup * 1000) : undefined;
    if (!measuring) measure();
    let result: CannonResult;
    try {
      result = await autocannon({
        url: base,
        connections: sims.length,
        duration: options.warmup + options.seconds,
        pipelining: 1,
        timeout: REQUEST_TIMEOUT_S,
        requests: [{ method: 'GET', path: '/api/health' }],
        setupClient,
      });
    } finally {
      clearInterval(progress);
      clearTimeout(measuring);
    }
    const runTo = Date.now();
    const measuredSeconds = (performance.now() - measureFrom) / 1000;
    const runtimes = runtimesOf(await metricsBefore, await scrapeAll());
    const own = process.cpuUsage(ownBefore);
    const cpu = [
      ...pids.flatMap(([name, pid]) => {
        const before = cpuBefore.get(name);
        const after = cpuSeconds(pid);
        return before === undefined || after === undefined ? [] : [{ name, seconds: after - before }];
      }),
      { name: 'load generator (this process)', seconds: (own.user + own.system) / 1e6 },
    ].sort((a, b) => b.seconds - a.seconds);
    for (const sim of sims) {
      if (sim.pending?.sent) counterOf(sim.pending.op).cutAtEnd++;
      sim.pending = undefined;
    }
    log(`  done: ${answered.toLocaleString('en-US')} answered in ${result.duration} s, ${failed} errors`);
    const warmup = { seconds: options.warmup, ...warmupOf(warmCounters) };
    for (const [op, c] of warmCounters) {
      for (const [status, example] of c.examples) notes.push(`warm-up: ${op}: ${status} — ${example}`);
      if (c.timeouts) notes.push(`warm-up: ${op}: ${count(c.timeouts)} timeouts`);
      if (c.connectionErrors) notes.push(`warm-up: ${op}: ${count(c.connectionErrors)} connection errors`);
    }

    // The uploads' jobs, to their end (the data size at the end counts their records).
    const jobs = sims.flatMap((sim) => sim.uploads.map((jobId) => ({ sim, jobId })));
    const uploads = { jobs: jobs.length, completed: 0, rows: 0, created: 0, refusedRows: 0 };
    if (jobs.length) log(`Waiting for the ${jobs.length} uploads' jobs to finish...`);
    const jobsDeadline = performance.now() + JOBS_TIMEOUT_MS;
    for (const { sim, jobId } of jobs) {
      for (;;) {
        const res = await fetch(`${base}/api/ingest/jobs/${jobId}`, {
          headers: { accept: 'application/json', cookie: sim.cookie },
        });
        const job = (await res.json()) as IngestJob;
        if (res.status === 200 && (job.state === 'completed' || job.state === 'failed')) {
          if (job.state === 'completed') uploads.completed++;
          else notes.push(`upload job ${jobId} failed`);
          uploads.rows += job.result?.totalRecords ?? job.totalRows;
          uploads.created += job.result?.successfulRecords ?? 0;
          uploads.refusedRows += job.result?.errors.length ?? 0;
          break;
        }
        if (res.status !== 200) {
          notes.push(`GET /api/ingest/jobs/${jobId} answered ${res.status}`);
          break;
        }
        if (performance.now() > jobsDeadline) {
          notes.push(`upload job ${jobId} still ${job.state} ${JOBS_TIMEOUT_MS / 60_000} minutes after the run`);
          break;
        }
        await sleep(200);
      }
    }
    const recordsAtEnd = await s.records.model.countDocuments({});

    const logged = serviceTimes(system.logsDir, ['gateway', ...Object.keys(system.services)], runFrom, runTo);
    if (options.env.BENCH_LOGS) {
      cpSync(system.logsDir, options.env.BENCH_LOGS, { recursive: true });
      log(`Logs copied to ${options.env.BENCH_LOGS}`);
    }

    const operations: OperationFigures[] = mix.map((o) => {
      const c = counterOf(o.name);
      const sorted = [...c.samples].sort((a, b) => a - b);
      const statuses = Object.fromEntries([...c.statuses].sort(([a], [b]) => a - b).map(([k, v]) => [String(k), v]));
      for (const [status, example] of c.examples) notes.push(`${o.name}: ${status} — ${example}`);
      return {
        name: o.name,
        kind: o.kind,
        share: o.share,
        request: o.request,
        admin: !!o.admin,
        requests: sorted.length,
        perSecond: sorted.length / measuredSeconds,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        max: sorted.at(-1) ?? Number.NaN,
        statuses,
        httpErrors: [...c.statuses.values()].reduce((a, b) => a + b, 0),
        timeouts: c.timeouts,
        connectionErrors: c.connectionErrors,
        cutAtEnd: c.cutAtEnd,
      };
    });
    if (uploads.refusedRows > 0) notes.push(`the uploads' jobs refused ${uploads.refusedRows} rows`);

    const users = Object.fromEntries(AGENCY_CODES.map((a) => [a, usersOf(a)]));
    return {
      machine: host,
      store: s.name,
      records: options.records,
      perAgency: Object.fromEntries(owners.map((o) => [o.agency, o.ids.length])),
      seeding,
      recordsAtEnd,
      users,
      admins: options.admins,
      think: options.think,
      seconds: measuredSeconds,
      warmup,
      autocannon: AUTOCANNON_VERSION,
      reportModel: 'none: reports written from the template',
      operations,
      idleConnectionErrors,
      uploads,
      cpu,
      services: logged,
      runtimes,
      signInSeconds,
      notes,
      totalSeconds: (performance.now() - started) / 1000,
      loadAtEnd: os.loadavg()[0] ?? 0,
    };
  });
}

// --- the report --------------------------------------------------------------------------------

/** Every answered request of `ops` together: count, rate and percentiles are recomputed by the caller. */
function totals(ops: OperationFigures[]) {
  return {
    requests: ops.reduce((a, o) => a + o.requests, 0),
    httpErrors: ops.reduce((a, o) => a + o.httpErrors, 0),
    timeouts: ops.reduce((a, o) => a + o.timeouts, 0),
    connectionErrors: ops.reduce((a, o) => a + o.connectionErrors, 0),
    cutAtEnd: ops.reduce((a, o) => a + o.cutAtEnd, 0),
  };
}

const count = (n: number) => n.toLocaleString('en-US');

/** Whether the run met issue 21's targets, and which rows did not. */
export function targetsOf(r: LoadReport): { met: boolean; lines: string[] } {
  const lines: string[] = [];
  let met = true;
  for (const kind of ['read', 'write'] as const) {
    const rows = r.operations.filter((o) => o.kind === kind && o.requests > 0);
    const limit = TARGET_P99_MS[kind];
    const over = rows.filter((o) => !(o.p99 <= limit));
    const worst = rows.reduce<OperationFigures | undefined>((w, o) => (!w || o.p99 > w.p99 ? o : w), undefined);
    met &&= over.length === 0;
    lines.push(
      `  ${kind}s p99 ≤ ${limit} ms: ${over.length === 0 ? 'met' : 'MISSED'} (` +
        (over.length
          ? `over: ${over.map((o) => `${o.name} ${ms(o.p99)}`).join(', ')}`
          : `slowest ${worst ? `${worst.name} ${ms(worst.p99)} ms` : '—'}`) +
        ')',
    );
  }
  const t = totals(r.operations);
  const errors = t.httpErrors + t.timeouts + t.connectionErrors + r.idleConnectionErrors + r.warmup.errors;
  met &&= errors === 0;
  lines.push(
    `  0 errors: ${errors === 0 ? 'met' : 'MISSED'} (${count(t.httpErrors)} non-2xx/3xx, ${count(t.timeouts)} timeouts, ` +
      `${count(t.connectionErrors + r.idleConnectionErrors)} connection errors; ${count(r.warmup.errors)} in the warm-up)`,
  );
  return { met, lines };
}

export function formatLoadReport(r: LoadReport): string {
  const m = r.machine;
  const agencies = Object.entries(r.perAgency)
    .map(([a, n]) => `${a} ${count(n)}`)
    .join(', ');
  const users = Object.entries(r.users)
    .map(([a, n]) => `${a} ${n}`)
    .join(', ');
  const agencyUsers = Object.values(r.users).reduce((a, b) => a + b, 0);
  const head = [
    `Machine: ${m.cpu} × ${m.cpus}, ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, ${m.platform} (load ${m.load.toFixed(2)} at start)`,
    `Data:    ${count(r.records)} records seeded (${agencies}) into records, the linking match index and the stats`,
    `         read model before the services started (${r.seeding.seconds.toFixed(1)} s, ${count(Math.round(r.seeding.perSecond))} records/s); ${count(r.recordsAtEnd)} records at the end`,
    `Store:   ${r.store}`,
    `Users:   ${agencyUsers} agency users (${users}) and ${r.admins} ADMIN sessions, each registered, signed in and`,
    `         with a connection of its own (autocannon ${r.autocannon}, one request at a time); signing in took ${r.signInSeconds.toFixed(1)} s`,
    r.think > 0
      ? `Pace:    after each answer a user waits ${count(r.think / 2)}–${count((r.think * 3) / 2)} ms (uniform, mean ${count(r.think)}) before its next request` +
        (r.think * 1.5 >= IDLE_CONNECTION_MS
          ? `;\n         after ${count(IDLE_CONNECTION_MS)} ms or more it sends on a new connection (the gateway closes idle ones after 5 s)`
          : '')
      : 'Pace:    no think time: each user sends its next request as soon as it has an answer (closed loop)',
    r.warmup.seconds > 0
      ? `Run:     ${r.warmup.seconds} s of warm-up (the same users and mix: ${count(r.warmup.requests)} answered, p50 ${ms(r.warmup.p50)} ms, p99 ${ms(r.warmup.p99)} ms,\n         max ${ms(r.warmup.max)} ms, ${count(r.warmup.errors)} errors; not in the table), then ${r.seconds.toFixed(1)} s measured; reports: ${r.reportModel}`
      : `Run:     ${r.seconds.toFixed(1)} s measured from the first request (no warm-up); reports: ${r.reportModel}`,
    '',
    'Mix (share of an agency user’s requests; the ADMIN sessions’ own mix below them):',
    ...r.operations.map((o) => `  ${o.name.padEnd(20)} ${`${o.share}%`.padStart(6)}  ${o.request}`),
    '',
  ];
  const header = [
    'operation',
    'kind',
    'requests',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max ms',
    'non-2xx',
    'timeouts',
    'conn err',
  ];
  const row = (
    name: string,
    kind: string,
    o: Omit<OperationFigures, 'name' | 'kind' | 'share' | 'request' | 'admin'>,
  ) => [
    name,
    kind,
    count(o.requests),
    o.perSecond.toFixed(1),
    ms(o.p50),
    ms(o.p95),
    ms(o.p99),
    ms(o.max),
    count(o.httpErrors),
    count(o.timeouts),
    count(o.connectionErrors),
  ];
  const rows = r.operations.map((o) => row(o.name, o.kind, o));
  const t = totals(r.operations);
  const allRow = [
    'all',
    '',
    count(t.requests),
    (t.requests / r.seconds).toFixed(1),
    '',
    '',
    '',
    '',
    count(t.httpErrors),
    count(t.timeouts),
    count(t.connectionErrors + r.idleConnectionErrors),
  ];
  const statuses = r.operations.filter((o) => o.httpErrors > 0);
  const targets = targetsOf(r);
  const cpuTotal = r.cpu.reduce((a, c) => a + c.seconds, 0);
  const serviceRows = r.services.filter((row) => row.requests >= 10);
  return [
    ...head,
    ...table(header, [...rows, allRow]),
    '',
    'Percentiles are nearest-rank over every answered request of the row (error answers included), from',
    'sending the request to having read the whole answer. req/s = answered requests ÷ the measured seconds.',
    `Sent but unanswered when the run ended (not errors): ${count(t.cutAtEnd)}.`,
    ...(statuses.length
      ? [`Non-2xx answers by status: ${statuses.map((o) => `${o.name} ${JSON.stringify(o.statuses)}`).join('; ')}`]
      : []),
    `Uploads: ${count(r.uploads.jobs)} accepted, ${count(r.uploads.completed)} jobs completed after the run, ${count(r.uploads.created)} of ${count(r.uploads.rows)} rows created`,
    '',
    `Targets (issue 21): ${targets.met ? 'met' : 'NOT met'}`,
    ...targets.lines,
    '',
    `CPU seconds during the run (${(cpuTotal / r.seconds).toFixed(2)} of ${m.cpus} cores busy on average with these processes):`,
    `  ${r.cpu.map((c) => `${c.name} ${c.seconds.toFixed(1)}`).join(', ')}`,
    '',
    "Each service's own time per route during the run (its access log, ms; routes with 10+ requests):",
    ...table(
      ['service', 'route', 'requests', 'p50', 'p99'],
      serviceRows.map((row) => [row.service, row.route, count(row.requests), ms(row.p50), ms(row.p99)]),
    ).map((line) => `  ${line}`),
    '',
    "Each service's Node.js runtime during the run (its /metrics: event-loop delay, garbage-collection pauses):",
    ...table(
      [
        'service',
        'loop delay max',
        'p99',
        'major GCs',
        'pauses',
        'scavenges',
        'pauses',
        'incremental',
        'all GC',
        'heap MB',
      ],
      r.runtimes.map((x) => [
        x.service,
        ms(x.loopDelayMax),
        ms(x.loopDelayP99),
        count(x.majorGcs),
        ms(x.majorGcMs),
        count(x.minorGcs),
        ms(x.minorGcMs),
        ms(x.incrementalGcMs),
        ms(x.gcMs),
        x.heapMb.toFixed(0),
      ]),
    ).map((line) => `  ${line}`),
    '',
    `Total run ${(r.totalSeconds / 60).toFixed(1)} min; load ${r.loadAtEnd.toFixed(2)} at the end.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}
