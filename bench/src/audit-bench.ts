/**
 * The audit trail at scale (issue 21, ADR 0014): N audit events published to an AUDIT stream of
 * the run's own and stored by the real audit service (`createApp`: its durable writer, its HTTP
 * app), in process, on the bench's own FerretDB (or MONGO_URL) and NATS (or NATS_URL). Measured:
 * the writer's throughput end to end and its catch-up, `appendMany` straight on a store, the reads
 * of `GET /api/audit` through the service's HTTP app with a signed identity, `verify` over the
 * whole chain and one retention run. Every answer read is checked against the events generated
 * (its total) and against the same query made straight on the entries as the store made it before
 * any optimisation (a sort by seq, skip and limit): a difference is a note.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { createApp } from '@nrad/audit-service/app';
import { AuditConfigSchema } from '@nrad/audit-service/config';
import {
  AGENCY_CODES,
  type AuditAction,
  type AuditEvent,
  type AuditItem,
  type AuditPage,
  IDENTITY_HEADER,
  type Organization,
  type UserIdentity,
} from '@nrad/contracts';
import { ensureDebianPackages, ensureFerretdbBinary, startFerretdb, startNats } from '@nrad/infra';
import {
  AuditTrail,
  auditSubject,
  type Bus,
  closeServer,
  connectBus,
  connectMongo,
  createLogger,
  listen,
  MongoAuditSpool,
  newIdentityKeyPair,
  parseSigner,
  signIdentity,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import { AuditStore } from '../../services/audit/src/data/store.ts';
import { describeStore, type RunContext, sleep } from './harness.ts';
import { cpuSeconds, type Latency, latency, type Machine, machine, machineLine, ms, table } from './report.ts';
import { Random } from './seed.ts';

export { Cleanup } from './harness.ts';

export interface AuditBenchOptions extends RunContext {
  /** Audit events published and stored (N). */
  entries: number;
  iterations: number;
  warmup: number;
  seed: number;
}

/** The reads of `GET /api/audit` the run times, in order. */
export const AUDIT_READS = [
  'ADMIN, unfiltered, first page',
  'ADMIN, unfiltered, page at offset 5,000',
  'ADMIN, recordId filter',
  'ADMIN, userId filter',
  'ADMIN, one day (from/to)',
  'agency user, its record’s timeline',
  'ADMIN, unfiltered, first page, after retention',
] as const;
export type AuditReadName = (typeof AUDIT_READS)[number];

/** Latency with its slowest run. */
export interface ReadResult {
  name: AuditReadName;
  /** The query string, for the reader. */
  query: string;
  latency: Latency & { max: number };
  /** The totals the runs answered (fewest, most) and what the generated events say it must be. */
  total: { min: number; max: number; expected: number };
  /** Items on the page answered. */
  items: number;
}

/** How the request path's events reach the stream in the trail rows (issue 38). */
export const TRAIL_MODES = ['one message per event', 'group commit (AuditTrail)'] as const;
export type TrailMode = (typeof TRAIL_MODES)[number];
/** Requests recording at once in the trail rows. */
export const TRAIL_CONCURRENCY = [1, 16, 64] as const;
/** Events each trail row records (fewer when N is smaller). */
const TRAIL_EVENTS = 10_000;

/** Requests recording their events as a service's request path does: each waits until its events are durable. */
export interface TrailResult {
  mode: TrailMode;
  concurrency: number;
  events: number;
  seconds: number;
  /** Messages the stream stored for them. */
  messages: number;
  /** Each request's wait for its event to be durable. */
  latency: Latency & { max: number };
  /** CPU of the publishing process and of nats-server (when the bench started it), ms per 1,000 events. */
  clientCpuMs: number;
  natsCpuMs: number | null;
}

export interface AuditBenchReport {
  machine: Machine;
  n: number;
  store: string;
  bus: string;
  /** What the events are: actions, users, records. */
  mix: { actions: Record<string, number>; users: Record<string, number>; records: number; recordIds: number };
  writer: {
    publishSeconds: number;
    /** First publish → every event stored (the writer's consumer has nothing pending). */
    endToEndSeconds: number;
    /** Last publish acknowledged → every event stored. */
    catchUpSeconds: number;
    /** Entries stored when the last publish was acknowledged. */
    storedAtLastPublish: number;
    /** The writer's runs (`appendMany` calls) and their time. */
    runs: number;
    runLatency: Latency & { max: number };
  };
  direct: { events: number; runSize: number; seconds: number; runLatency: Latency & { max: number } };
  trail: TrailResult[];
  reads: ReadResult[];
  iterations: number;
  warmup: number;
  verify: { entries: number; seconds: number; holds: boolean };
  retention: { removed: number; seconds: number; cutoff: string };
  verifyAfter: { entries: number; seconds: number; holds: boolean };
  notes: string[];
  seconds: number;
  loadAtEnd: number;
}

const DAY_MS = 86_400_000;
/** Entries are kept 400 days (AUDIT_RETENTION_DAYS' default); the events span a little less. */
const SPAN_MS = 400 * DAY_MS - 3_600_000;
/** Publishes in flight at once (the stream acknowledges each). */
const PUBLISH_WINDOW = 500;
/** appendMany's run, as the writer's consumer hands it at most. */
const RUN_SIZE = 200;
const PAGE = 50;
/** How long the writer may take to store everything before the run calls it a failure. */
const CATCH_UP_TIMEOUT_MS = 30 * 60_000;

/** The realistic mix: reads of one record, list pages of 100, searches answering 20, edits, sign-ins. */
const ACTIONS: ReadonlyArray<{ action: AuditAction; weight: number; ids: number; service: string }> = [
  { action: 'record.read', weight: 40, ids: 1, service: 'records' },
  { action: 'record.list', weight: 15, ids: 100, service: 'records' },
  { action: 'record.search', weight: 15, ids: 20, service: 'records' },
  { action: 'record.edit', weight: 10, ids: 1, service: 'records' },
  { action: 'sign-in', weight: 20, ids: 0, service: 'gateway' },
];
/** The action whose share of the weights holds `roll` (0 ≤ roll < the weights' sum). */
function pickWeighted(roll: number): (typeof ACTIONS)[number] {
  let left = roll;
  for (const a of ACTIONS) {
    if (left < a.weight) return a;
    left -= a.weight;
  }
  return ACTIONS[ACTIONS.length - 1] as (typeof ACTIONS)[number];
}
const USERS_PER_ORG: Record<Organization, number> = { BPS: 5, FIA: 5, CUS: 5, ADMIN: 2 };

const rate = (count: number, seconds: number) => `${Math.round(count / seconds).toLocaleString('en-US')}/s`;
const secs = (s: number) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s.toFixed(2));
const num = (v: number) => v.toLocaleString('en-US');

const maxLatency = (samples: readonly number[]) => ({ ...latency(samples), max: Math.max(...samples) });

/** A 24-hex id (as records have) from the generator. */
const hexId = (rng: Random) =>
  Array.from({ length: 3 }, () => rng.int(0, 0xffffffff).toString(16).padStart(8, '0')).join('');

interface Generated {
  events: AuditEvent[];
  users: UserIdentity[];
  /** Each record's owner and how many events name it. */
  records: Array<{ id: string; organization: Organization; named: number }>;
  mix: AuditBenchReport['mix'];
}

/** N events over the last 400 days, in time order, reproducible from the seed. */
export function generateEvents(n: number, seed: number, tag: string, now: number): Generated {
  const rng = new Random(seed);
  const users: UserIdentity[] = [];
  for (const organization of [...AGENCY_CODES, 'ADMIN'] as Organization[]) {
    for (let k = 0; k < USERS_PER_ORG[organization]; k++) {
      users.push({
        kind: 'user',
        userId: hexId(rng),
        name: `Bench ${organization} ${k + 1}`,
        organization,
        role: organization === 'ADMIN' ? 'Administrator' : 'Analyst',
      });
    }
  }
  // About 30 events name each record on average (18.5 ids an event).
  const recordCount = Math.max(300, Math.round(n * 0.6));
  const records = Array.from({ length: recordCount }, (_, i) => ({
    id: hexId(rng),
    organization: AGENCY_CODES[i % AGENCY_CODES.length] as Organization,
    named: 0,
  }));
  const byAgency = new Map<Organization, typeof records>(
    AGENCY_CODES.map((a) => [a as Organization, records.filter((r) => r.organization === a)]),
  );
  const totalWeight = ACTIONS.reduce((s, a) => s + a.weight, 0);
  const start = now - SPAN_MS;
  const step = SPAN_MS / n;
  const events: AuditEvent[] = [];
  const mix: AuditBenchReport['mix'] = {
    actions: Object.fromEntries(ACTIONS.map((a) => [a.action, 0])),
    users: Object.fromEntries(Object.keys(USERS_PER_ORG).map((o) => [o, 0])),
    records: recordCount,
    recordIds: 0,
  };
  for (let i = 0; i < n; i++) {
    const kind = pickWeighted(rng.next() * totalWeight);
    const user = rng.pick(users);
    const org = user.organization;
    // An agency's user sees its own records; ADMIN any.
    const pool = org === 'ADMIN' ? records : (byAgency.get(org) as typeof records);
    const named = new Set<(typeof records)[number]>();
    if (kind.ids >= 100) {
      // A list page: consecutive records of the list.
      const first = rng.int(0, pool.length - 1);
      for (let k = 0; k < Math.min(kind.ids, pool.length); k++) {
        named.add(pool[(first + k) % pool.length] as (typeof records)[number]);
      }
    } else {
      while (named.size < Math.min(kind.ids, pool.length)) named.add(rng.pick(pool));
    }
    for (const r of named) r.named++;
    mix.actions[kind.action] = (mix.actions[kind.action] ?? 0) + 1;
    mix.users[org] = (mix.users[org] ?? 0) + 1;
    mix.recordIds += named.size;
    events.push({
      id: `${tag}-${i}`,
      action: kind.action,
      // In time order, a little apart.
      at: new Date(Math.floor(start + (i + rng.next()) * step)).toISOString(),
      userId: user.userId,
      organization: org,
      recordIds: [...named].map((r) => r.id),
      requestId: `bench-${i.toString(36)}`,
      clientAddress: `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`,
      service: kind.service,
      ...(kind.action === 'record.edit' ? { detail: { status: 200 } } : {}),
    });
  }
  return { events, users, records, mix };
}

/** The servers: the bench's own FerretDB and NATS in a throwaway directory unless MONGO_URL / NATS_URL name others. */
async function startServers(
  options: AuditBenchOptions,
): Promise<{ mongoUrl: string; natsUrl: string; natsPid?: number }> {
  const { env, cleanup, log } = options;
  if (env.MONGO_URL && env.NATS_URL) return { mongoUrl: env.MONGO_URL, natsUrl: env.NATS_URL };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-bench-audit-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  let mongoUrl = env.MONGO_URL;
  if (!mongoUrl) {
    ensureFerretdbBinary(log);
    const pg = env.FERRETDB_POSTGRESQL_URL;
    const ferret = await startFerretdb({
      ...(pg ? { postgresqlUrl: pg } : { sqliteDir: path.join(dir, 'ferretdb') }),
      logFile: path.join(dir, 'ferretdb.log'),
    });
    cleanup.add(() => ferret.process.stop());
    mongoUrl = ferret.url;
  }
  let natsUrl = env.NATS_URL;
  let natsPid: number | undefined;
  if (!natsUrl) {
    ensureDebianPackages([{ command: 'nats-server', pkg: 'nats-server' }], log);
    const nats = await startNats({ storeDir: path.join(dir, 'nats'), logFile: path.join(dir, 'nats.log') });
    cleanup.add(() => nats.process.stop());
    natsUrl = nats.url;
    natsPid = nats.process.child.pid;
  }
  return { mongoUrl, natsUrl, ...(natsPid ? { natsPid } : {}) };
}

/** An item as `GET /api/audit` lists it, from a stored entry document. */
function itemOf(d: Record<string, unknown>): AuditItem {
  return {
    id: d.eventId as string,
    seq: d._id as number,
    action: d.action as AuditItem['action'],
    at: d.at as string,
    userId: (d.userId as string | null | undefined) ?? null,
    organization: (d.organization as Organization | null | undefined) ?? null,
    recordIds: [...(d.recordIds as string[])],
    requestId: (d.requestId as string | null | undefined) ?? null,
    // ADMIN's page also says where from, which service and the detail (issue 37).
    clientAddress: (d.clientAddress as string | null | undefined) ?? null,
    service: d.service as string,
    ...(d.detail ? { detail: d.detail as AuditItem['detail'] } : {}),
  };
}

export async function runAuditBench(options: AuditBenchOptions): Promise<AuditBenchReport> {
  const { log, cleanup, env } = options;
  const started = performance.now();
  const host = machine();
  const notes: string[] = [];
  const n = options.entries;
  const tag = `bench${Date.now().toString(36)}`;

  const { mongoUrl, natsUrl, natsPid } = await startServers(options);
  // The bench signs as the gateway would, with a key of its own that the service trusts.
  const gatewayKeys = newIdentityKeyPair();
  const gateway = parseSigner('gateway', gatewayKeys.privateKey);
  const config = AuditConfigSchema.parse({
    IDENTITY_PUBLIC_KEYS: `gateway=${gatewayKeys.publicKey}`,
    MONGO_URL: mongoUrl,
    MONGO_DB: `${tag}_audit`,
    NATS_URL: natsUrl,
    AUDIT_STREAM: `${tag}_AUDIT`,
    AUDIT_SUBJECT_PREFIX: `${tag}.audit`,
    AUDIT_CONSUMER: 'audit-writer',
    RECORDS_STREAM: `${tag}_RECORDS`,
    RECORDS_SUBJECT_PREFIX: `${tag}.records`,
    RECORDS_CONSUMER: 'audit',
    LOG_LEVEL: env.LOG_LEVEL || 'warn',
  });
  const logger = createLogger({ name: 'audit', level: config.LOG_LEVEL });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  cleanup.add(() => db.close());
  // The run's databases go whatever happens (on a given server they would stay otherwise).
  cleanup.add(() => db.dropDatabase().catch(() => undefined));
  const bus: Bus = await connectBus({ url: config.NATS_URL, name: 'bench-audit' });
  cleanup.add(() => bus.nc.close());
  cleanup.add(async () => {
    for (const stream of [config.AUDIT_STREAM, config.RECORDS_STREAM]) {
      await bus.jsm.streams.delete(stream).catch(() => undefined);
    }
  });
  if (!db.db) throw new Error('not connected to the store');
  const store = await describeStore(db.db, env);
  log(`Store: ${store}`);
  const busInfo = env.NATS_URL ? `NATS at ${natsUrl.replace(/^nats:\/\/(?:[^@/]*@)?/, '')}` : 'nats-server (local)';

  const built = await createApp({ config, db, bus, logger });
  let running = true;
  cleanup.add(() => (running ? built.stop() : undefined));
  const { server, port } = await listen(built.app, 0, '127.0.0.1');
  cleanup.add(() => closeServer(server as Server));
  await built.retention.idle(); // the run at start, on the empty chain

  log(`Generating ${n.toLocaleString('en-US')} audit events...`);
  const gen = generateEvents(n, options.seed, tag, Date.now());
  const { events } = gen;

  // The writer's runs, timed where the consumer calls them (the same store object).
  const writerRuns: number[] = [];
  const appendMany = built.store.appendMany.bind(built.store);
  built.store.appendMany = async (run) => {
    const t = performance.now();
    await appendMany(run);
    writerRuns.push(performance.now() - t);
  };
  const consumerIdle = async (stream: string, durable: string) => {
    const info = await bus.jsm.consumers.info(stream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  };
  const entries = built.store.entries;

  // 0. The request path: requests recording at once, each until its event is durable (issue 38),
  // on streams of their own that no writer consumes (each row its own: ids are not shared).
  const trail: TrailResult[] = [];
  const trailEvents = events.slice(0, Math.min(n, TRAIL_EVENTS));
  const spool = new MongoAuditSpool(db);
  for (const concurrency of TRAIL_CONCURRENCY) {
    for (const mode of TRAIL_MODES) {
      const k = trail.length;
      const stream = { AUDIT_STREAM: `${tag}_TRAIL${k}`, AUDIT_SUBJECT_PREFIX: `${tag}.trail${k}` };
      cleanup.add(() => bus.jsm.streams.delete(stream.AUDIT_STREAM).catch(() => undefined));
      const audit = new AuditTrail({ bus, stream, service: 'bench', logger, spool });
      await audit.start();
      const record: (e: AuditEvent) => Promise<unknown> =
        mode === 'one message per event'
          ? (e) => bus.publisher.publish(auditSubject(stream, e.action), e.id, JSON.stringify(e))
          : (e) => audit.publish([e]);
      const samples: number[] = [];
      let next = 0;
      const requester = async () => {
        for (let i = next++; i < trailEvents.length; i = next++) {
          const t = performance.now();
          await record(trailEvents[i] as AuditEvent);
          samples.push(performance.now() - t);
        }
      };
      const cpu = process.cpuUsage();
      const natsBefore = natsPid ? cpuSeconds(natsPid) : undefined;
      const t = performance.now();
      await Promise.all(Array.from({ length: concurrency }, requester));
      const seconds = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      const natsAfter = natsPid ? cpuSeconds(natsPid) : undefined;
      await audit.stop();
      const info = await bus.jsm.streams.info(stream.AUDIT_STREAM);
      if ((await spool.take(1)).length > 0) notes.push(`trail ${mode} × ${concurrency}: events were spooled.`);
      const perK = 1000 / trailEvents.length;
      trail.push({
        mode,
        concurrency,
        events: trailEvents.length,
        seconds,
        messages: info.state.messages,
        latency: maxLatency(samples),
        clientCpuMs: ((used.user + used.system) / 1000) * perK,
        natsCpuMs: natsBefore !== undefined && natsAfter !== undefined ? (natsAfter - natsBefore) * 1000 * perK : null,
      });
      await bus.jsm.streams.delete(stream.AUDIT_STREAM);
      const row = trail[trail.length - 1] as TrailResult;
      log(
        `  ${mode}, ${concurrency} at once: ${rate(row.events, row.seconds)}, ${num(row.messages)} messages, p50 ${ms(row.latency.p50)} ms, p99 ${ms(row.latency.p99)} ms`,
      );
    }
  }

  // 1. The writer, end to end.
  log(`Publishing them to ${config.AUDIT_STREAM} while the audit service stores them...`);
  const firstPublish = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  for (const e of events) {
    const p = bus.publisher.publish(auditSubject(config, e.action), e.id, JSON.stringify(e));
    const tracked: Promise<unknown> = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= PUBLISH_WINDOW) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const lastPublish = performance.now();
  const storedAtLastPublish = await entries.estimatedDocumentCount();
  log(
    `  published in ${((lastPublish - firstPublish) / 1000).toFixed(1)} s; ${storedAtLastPublish.toLocaleString('en-US')} stored so far`,
  );
  for (let polls = 0; ; polls++) {
    if ((await consumerIdle(config.AUDIT_STREAM, config.AUDIT_CONSUMER)) && (await entries.countDocuments()) >= n) {
      break;
    }
    if (performance.now() - firstPublish > CATCH_UP_TIMEOUT_MS) throw new Error('the writer did not catch up in time');
    if (polls % 100 === 99) log(`  ${(await entries.estimatedDocumentCount()).toLocaleString('en-US')} stored...`);
    await sleep(50);
  }
  const caughtUp = performance.now();
  const stored = await entries.countDocuments();
  if (stored !== n) notes.push(`The writer stored ${stored.toLocaleString('en-US')} entries of ${n} events.`);
  built.store.appendMany = appendMany;
  const writer: AuditBenchReport['writer'] = {
    publishSeconds: (lastPublish - firstPublish) / 1000,
    endToEndSeconds: (caughtUp - firstPublish) / 1000,
    catchUpSeconds: (caughtUp - lastPublish) / 1000,
    storedAtLastPublish,
    runs: writerRuns.length,
    runLatency: maxLatency(writerRuns),
  };
  log(
    `  stored in ${writer.endToEndSeconds.toFixed(1)} s (${Math.round(n / writer.endToEndSeconds)} events/s), ${writer.runs} runs`,
  );

  // 2. appendMany straight on a store of its own (a scratch database on the same server).
  log(`appendMany straight on a store, runs of ${RUN_SIZE}...`);
  const scratch: Connection = db.useDb(`${tag}_direct`, { useCache: false });
  cleanup.add(() => scratch.dropDatabase().catch(() => undefined));
  const directStore = new AuditStore(scratch);
  await directStore.init();
  const directRuns: number[] = [];
  const directStarted = performance.now();
  for (let i = 0; i < events.length; i += RUN_SIZE) {
    const t = performance.now();
    await directStore.appendMany(events.slice(i, i + RUN_SIZE));
    directRuns.push(performance.now() - t);
  }
  const direct = {
    events: events.length,
    runSize: RUN_SIZE,
    seconds: (performance.now() - directStarted) / 1000,
    runLatency: maxLatency(directRuns),
  };
  if ((await directStore.entries.countDocuments()) !== n) notes.push('appendMany straight did not store every event.');
  await scratch.dropDatabase();
  log(`  ${direct.seconds.toFixed(1)} s (${Math.round(n / direct.seconds)} events/s)`);

  // 3. Reads through the service's HTTP app, as the gateway calls it (a signed identity token).
  const users = gen.users;
  const admin = users.find((u) => u.organization === 'ADMIN') as UserIdentity;
  const agencyUser = users.find((u) => u.organization === 'BPS') as UserIdentity;
  const middling = (org: Organization, not?: string) =>
    gen.records
      .filter((r) => r.organization === org && r.id !== not && r.named >= 10 && r.named <= 50)
      .sort((a, b) => Math.abs(a.named - 30) - Math.abs(b.named - 30))[0] ??
    (gen.records.find((r) => r.organization === org && r.named > 0) as Generated['records'][number]);
  const adminRecord = middling('FIA');
  const agencyRecord = middling('BPS');
  await built.owners.record(gen.records.map((r) => ({ recordId: r.id, organization: r.organization })));
  const theUser = users.find((u) => u.organization === 'CUS') as UserIdentity;
  const dayFrom = new Date(Math.floor((Date.now() - SPAN_MS / 2) / DAY_MS) * DAY_MS);
  const dayTo = new Date(dayFrom.getTime() + DAY_MS);
  const offset = n > 5_000 + PAGE ? 5_000 : Math.floor(n / 2);
  if (offset !== 5_000) notes.push(`The page "at offset 5,000" is at offset ${num(offset)}: N is too small.`);
  const count = (keep: (e: AuditEvent) => boolean) => events.reduce((c, e) => c + (keep(e) ? 1 : 0), 0);

  interface ReadSpec {
    name: AuditReadName;
    user: UserIdentity;
    query: Record<string, string | number>;
    /** The same read straight on the entries as the store made it at first: a sort by seq, skip, limit. */
    filter: Record<string, unknown>;
    offset: number;
    narrowTo?: string;
    expected: () => number;
  }
  const reads: ReadSpec[] = [
    { name: AUDIT_READS[0], user: admin, query: { limit: PAGE }, filter: {}, offset: 0, expected: () => n },
    {
      name: AUDIT_READS[1],
      user: admin,
      query: { limit: PAGE, offset },
      filter: {},
      offset,
      expected: () => n,
    },
    {
      name: AUDIT_READS[2],
      user: admin,
      query: { recordId: adminRecord.id, limit: PAGE },
      filter: { recordIds: adminRecord.id },
      offset: 0,
      expected: () => adminRecord.named,
    },
    {
      name: AUDIT_READS[3],
      user: admin,
      query: { userId: theUser.userId, limit: PAGE },
      filter: { userId: theUser.userId },
      offset: 0,
      expected: () => count((e) => e.userId === theUser.userId),
    },
    {
      name: AUDIT_READS[4],
      user: admin,
      query: { from: dayFrom.toISOString(), to: dayTo.toISOString(), limit: PAGE },
      filter: { time: { $gte: dayFrom, $lt: dayTo } },
      offset: 0,
      expected: () => count((e) => e.at >= dayFrom.toISOString() && e.at < dayTo.toISOString()),
    },
    {
      name: AUDIT_READS[5],
      user: agencyUser,
      query: { recordId: agencyRecord.id, limit: PAGE },
      filter: { recordIds: agencyRecord.id },
      offset: 0,
      narrowTo: agencyRecord.id,
      expected: () => agencyRecord.named,
    },
  ];

  const get = async (user: UserIdentity, query: Record<string, string | number>) => {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const token = await signIdentity(user, gateway);
    const t = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/api/audit?${qs}`, { headers: { [IDENTITY_HEADER]: token } });
    const text = await res.text();
    const elapsed = performance.now() - t;
    if (res.status !== 200) throw new Error(`GET /api/audit?${qs} answered ${res.status}: ${text.slice(0, 300)}`);
    return { ms: elapsed, page: JSON.parse(text) as AuditPage, qs };
  };
  /** The page the store answered at first, straight on the collection. */
  const reference = async (spec: ReadSpec): Promise<AuditPage> => {
    const col = entries.collection;
    const projection = {
      ...{ _id: 1, eventId: 1, action: 1, at: 1, userId: 1, organization: 1, recordIds: 1, requestId: 1 },
      ...{ clientAddress: 1, service: 1, detail: 1 },
    };
    const [docs, total] = await Promise.all([
      col.find(spec.filter, { projection }).sort({ _id: -1 }).skip(spec.offset).limit(PAGE).toArray(),
      col.countDocuments(spec.filter),
    ]);
    const items = docs.map((d) => itemOf(d as Record<string, unknown>));
    const narrow = spec.narrowTo;
    // An agency's timeline names only the asked record, and shows another organization's entries as
    // that organization only (issue 34: no user id, no request id).
    const viewer = spec.user.organization;
    const asSeen = ({ clientAddress: _a, service: _s, detail: _d, ...i }: AuditItem): AuditItem =>
      i.organization === viewer
        ? { ...i, recordIds: [narrow as string] }
        : { ...i, recordIds: [narrow as string], userId: null, requestId: null };
    return { items: narrow ? items.map(asSeen) : items, total };
  };

  const results: ReadResult[] = [];
  const measureRead = async (spec: ReadSpec) => {
    const samples: number[] = [];
    const totals: number[] = [];
    let last: AuditPage | undefined;
    let qs = '';
    for (let run = 0; run < options.warmup + options.iterations; run++) {
      const answer = await get(spec.user, spec.query);
      qs = answer.qs;
      if (run >= options.warmup) {
        samples.push(answer.ms);
        totals.push(answer.page.total);
      }
      last = answer.page;
    }
    const expected = spec.expected();
    const result: ReadResult = {
      name: spec.name,
      query: qs,
      latency: maxLatency(samples),
      total: { min: Math.min(...totals), max: Math.max(...totals), expected },
      items: last?.items.length ?? 0,
    };
    results.push(result);
    log(
      `  ${spec.name}: p50 ${ms(result.latency.p50)} ms, p95 ${ms(result.latency.p95)} ms, max ${ms(result.latency.max)} ms (total ${result.total.max})`,
    );
    if (result.total.min !== expected || result.total.max !== expected) {
      notes.push(`${spec.name}: answered a total of ${result.total.min}–${result.total.max}, expected ${expected}.`);
    }
    const ref = await reference(spec);
    if (!isDeepStrictEqual(last, ref)) {
      notes.push(
        `${spec.name}: the answer differs from the same query sorted by seq straight on the entries (first items ${last?.items
          .slice(0, 3)
          .map((i) => i.seq)
          .join(', ')} vs ${ref.items
          .slice(0, 3)
          .map((i) => i.seq)
          .join(', ')}; totals ${last?.total} vs ${ref.total}).`,
      );
    }
  };

  log(`Reading GET /api/audit, ${options.iterations} times each after ${options.warmup} warm-up runs...`);
  for (const spec of reads) await measureRead(spec);

  // 4. The chain whole: verify, one retention run removing about a tenth, verify again.
  log('Verifying the chain...');
  let t = performance.now();
  const report1 = await built.store.verify();
  const verify = { entries: report1.checked, seconds: (performance.now() - t) / 1000, holds: !report1.broken };
  if (!verify.holds)
    notes.push(`verify found the chain broken at seq ${report1.broken?.seq}: ${report1.broken?.reason}`);
  log(`  ${verify.entries} entries in ${verify.seconds.toFixed(2)} s`);

  const cutoff = new Date((events[Math.floor(n / 10)] as AuditEvent).at);
  const expectRemoved = count((e) => e.at < cutoff.toISOString());
  log(`Retention up to ${cutoff.toISOString()}...`);
  t = performance.now();
  const removed = await built.store.removeOlderThan(cutoff);
  const retention = { removed: removed.removed, seconds: (performance.now() - t) / 1000, cutoff: cutoff.toISOString() };
  if (removed.removed !== expectRemoved) notes.push(`retention removed ${removed.removed}, expected ${expectRemoved}.`);
  log(`  ${retention.removed} removed in ${retention.seconds.toFixed(2)} s`);
  t = performance.now();
  const report2 = await built.store.verify();
  const verifyAfter = { entries: report2.checked, seconds: (performance.now() - t) / 1000, holds: !report2.broken };
  if (!verifyAfter.holds) notes.push(`verify after retention found the chain broken at seq ${report2.broken?.seq}`);

  await measureRead({
    name: AUDIT_READS[6],
    user: admin,
    query: { limit: PAGE },
    filter: {},
    offset: 0,
    expected: () => n - expectRemoved,
  });

  running = false;
  await built.stop();

  return {
    machine: host,
    n,
    store,
    bus: busInfo,
    mix: gen.mix,
    writer,
    direct,
    trail,
    reads: results,
    iterations: options.iterations,
    warmup: options.warmup,
    verify,
    retention,
    verifyAfter,
    notes,
    seconds: (performance.now() - started) / 1000,
    loadAtEnd: machine().load,
  };
}

export function formatAuditReport(r: AuditBenchReport): string {
  const m = r.machine;
  const share = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, v]) => `${k} ${num(v)}`)
      .join(', ');
  const w = r.writer;
  const lines = [
    machineLine(m),
    `N:       ${num(r.n)} audit events over the last 400 days, in time order: ${share(r.mix.actions)}`,
    `         (list pages name 100 records, searches 20, the others 1 or none); by ${share(r.mix.users)}`,
    `         (${Object.entries(USERS_PER_ORG)
      .map(([org, k]) => `${k} ${org}`)
      .join(', ')} users); ${num(r.mix.records)} records named ${num(r.mix.recordIds)} times`,
    `Store:   ${r.store}`,
    `Bus:     ${r.bus}; the audit service in process (createApp: its durable writer, its HTTP app)`,
    '',
    ...table(
      ['writing', 'events', 'seconds', 'events/s', 'run p50 ms', 'run p95 ms', 'run max ms'],
      [
        [
          'published to the AUDIT stream (500 in flight)',
          num(r.n),
          secs(w.publishSeconds),
          rate(r.n, w.publishSeconds),
          '',
          '',
          '',
        ],
        [
          `stored by the writer, first publish → all stored (${num(w.runs)} runs)`,
          num(r.n),
          secs(w.endToEndSeconds),
          rate(r.n, w.endToEndSeconds),
          ms(w.runLatency.p50),
          ms(w.runLatency.p95),
          ms(w.runLatency.max),
        ],
        [
          `catch-up after the last publish (${num(w.storedAtLastPublish)} stored by then)`,
          num(r.n - w.storedAtLastPublish),
          secs(w.catchUpSeconds),
          '',
          '',
          '',
          '',
        ],
        [
          `appendMany straight on a store, runs of ${r.direct.runSize}`,
          num(r.direct.events),
          secs(r.direct.seconds),
          rate(r.direct.events, r.direct.seconds),
          ms(r.direct.runLatency.p50),
          ms(r.direct.runLatency.p95),
          ms(r.direct.runLatency.max),
        ],
      ],
    ),
    '',
    ...table(
      [
        'the request path: requests at once',
        'events',
        'messages',
        'events/s',
        'p50 ms',
        'p99 ms',
        'CPU ms/1k: client',
        'nats',
      ],
      r.trail.map((x) => [
        `${x.mode}, ${x.concurrency}`,
        num(x.events),
        num(x.messages),
        rate(x.events, x.seconds),
        ms(x.latency.p50),
        ms(x.latency.p99),
        x.clientCpuMs.toFixed(0),
        x.natsCpuMs === null ? '' : x.natsCpuMs.toFixed(0),
      ]),
    ),
    '',
    ...table(
      ['GET /api/audit (limit 50)', 'runs', 'total', 'items', 'p50 ms', 'p95 ms', 'max ms'],
      r.reads.map((x) => [
        x.name,
        String(x.latency.samples),
        x.total.min === x.total.max ? num(x.total.max) : `${num(x.total.min)}–${num(x.total.max)}`,
        String(x.items),
        ms(x.latency.p50),
        ms(x.latency.p95),
        ms(x.latency.max),
      ]),
    ),
    '',
    ...table(
      ['the chain', 'entries', 'seconds', 'entries/s'],
      [
        [
          `verify, the whole chain${r.verify.holds ? ' (holds)' : ' (BROKEN)'}`,
          num(r.verify.entries),
          secs(r.verify.seconds),
          rate(r.verify.entries, r.verify.seconds),
        ],
        [
          `retention, entries before ${r.retention.cutoff.slice(0, 10)} removed`,
          num(r.retention.removed),
          secs(r.retention.seconds),
          rate(r.retention.removed, r.retention.seconds),
        ],
        [
          `verify after retention${r.verifyAfter.holds ? ' (holds)' : ' (BROKEN)'}`,
          num(r.verifyAfter.entries),
          secs(r.verifyAfter.seconds),
          rate(r.verifyAfter.entries, r.verifyAfter.seconds),
        ],
      ],
    ),
    '',
    'The request path: each request waits until its event is durable (acknowledged by the stream), the next event of',
    'the mix after it; one message per event is how the trail published before group commit (issue 38).',
    `Reads: ${r.iterations} measured per row after ${r.warmup} warm-up runs, one at a time, over HTTP to the service with`,
    'a signed identity token (as the gateway calls it); p50/p95 nearest rank. total = the answer’s total (each checked',
    'against the generated events, and each page against the same query sorted by seq straight on the entries).',
    `Total run ${(r.seconds / 60).toFixed(1)} min; load ${r.loadAtEnd.toFixed(2)} at the end.`,
    ...(r.notes.length ? ['', 'Notes:', ...r.notes.map((x) => `- ${x}`)] : []),
  ];
  return lines.join('\n');
}
