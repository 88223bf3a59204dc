import {
  type AuditEvent,
  IDENTITY_HEADER,
  type Organization,
  type RecordEvent,
  RecordEventSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { deferCleanup, type TestNamespace, testNamespace, waitUntil } from '@nrad/infra/harness';
import { type Bus, connectBus, connectMongo, createLogger } from '@nrad/service-kit';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import { testToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import { createApp } from '../src/app.ts';
import { recordsTestConfig } from '../src/test-support.ts';

export const logger = createLogger({ name: 'records-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });

/** A signed-in user of an organization (as the gateway would vouch for them). */
export function userOf(organization: Organization, name = `${organization} user`): UserIdentity {
  return { kind: 'user', userId: new Types.ObjectId().toHexString(), name, organization, role: 'Analyst' };
}

export async function headersFor(user: UserIdentity) {
  return { [IDENTITY_HEADER]: await testToken(user) };
}

/** A valid record body; every call a new incident number. */
let counter = 0;
export function recordBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    incidentNumber: `INC-${Date.now().toString(36)}-${counter}`,
    suspectName: 'John Smith',
    suspectDob: '1980-05-17',
    incidentDate: '2024-03-02',
    caseAmount: '1500.00',
    seizedAmount: '250.50',
    confiscatedAmount: '0',
    sourceOfRecord: 'Police Investigation',
    internationalNexus: false,
    cyberAssisted: false,
    ...overrides,
  };
}

export interface RecordsHarness {
  t: TestNamespace;
  stream: string;
  /** This instance's LINKS stream and subject prefix (the records service consumes `<prefix>.created`). */
  linksStream: string;
  linksSubjectPrefix: string;
  bus: Bus;
  server: ReturnType<Awaited<ReturnType<typeof createApp>>['app']['callback']>;
  built: Awaited<ReturnType<typeof createApp>>;
  /** A request agent with the user's identity header set. */
  as(user: UserIdentity): Promise<{
    get(path: string): request.Test;
    post(path: string): request.Test;
    put(path: string): request.Test;
    delete(path: string): request.Test;
  }>;
  /** Starts a fresh instance of the service on the same database and stream (a restart). */
  restart(): Promise<void>;
  /** Waits until no record or import has an unpublished event, then reads every event of the stream. */
  settledEvents(): Promise<Array<StreamedEvent>>;
  /** This instance's audit stream. */
  auditStream: string;
  /** Waits until no outbox or audit spool holds an event, then reads every event of the audit stream. */
  settledAudit(): Promise<Array<AuditEvent & { subject: string; msgId: string }>>;
  stop(): Promise<void>;
}

export async function startRecords(
  options: {
    natsUrl?: string;
    sweepMs?: number;
    importSweepMs?: number;
    listTotalTtlMs?: number;
    /** More variables of the service's config (`INCIDENT_PROBE_LIMIT`, say). */
    overrides?: Record<string, string>;
  } = {},
): Promise<RecordsHarness> {
  const t = testNamespace();
  const config = recordsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: options.natsUrl ?? t.natsUrl,
    redisUrl: t.redisUrl,
    redisPrefix: t.redisPrefix,
    dbName: t.db('records'),
    stream: t.stream('RECORDS'),
    subjectPrefix: t.subject('records'),
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
    ...(options.sweepMs ? { sweepMs: options.sweepMs } : {}),
    ...(options.importSweepMs ? { importSweepMs: options.importSweepMs } : {}),
    ...(options.listTotalTtlMs !== undefined ? { listTotalTtlMs: options.listTotalTtlMs } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  const bus = await connectBus({ url: config.NATS_URL, name: 'records-test' });
  const h = {
    t,
    stream: config.RECORDS_STREAM,
    linksStream: config.LINKS_STREAM,
    linksSubjectPrefix: config.LINKS_SUBJECT_PREFIX,
    auditStream: config.AUDIT_STREAM,
    bus,
    built: await createApp({ config, db, bus, logger }),
  } as RecordsHarness;
  h.server = h.built.app.callback();
  h.as = async (user) => {
    const headers = await headersFor(user);
    return {
      get: (p) => request(h.server).get(p).set(headers),
      post: (p) => request(h.server).post(p).set(headers),
      put: (p) => request(h.server).put(p).set(headers),
      delete: (p) => request(h.server).delete(p).set(headers),
    };
  };
  h.restart = async () => {
    await h.built.stop();
    h.built = await createApp({ config, db, bus, logger });
    h.server = h.built.app.callback();
  };
  h.settledEvents = async () => {
    const pending = async () =>
      (await db.collection('records').countDocuments({ outboxPending: true })) +
      (await db.collection('import_events').countDocuments({}));
    await waitUntil('outbox drained', async () => (await pending()) === 0, 20_000);
    return readStream(bus, config.RECORDS_STREAM);
  };
  h.settledAudit = async () => {
    await h.settledEvents();
    await waitUntil(
      'audit spool drained',
      async () => (await db.collection('audit_spool').countDocuments({})) === 0,
      20_000,
    );
    return readAuditStream(bus, config.AUDIT_STREAM);
  };
  let stopped: Promise<void> | undefined;
  h.stop = () => {
    stopped ??= (async () => {
      await h.built.stop();
      await bus.nc.close();
      await db.close();
    })();
    return stopped;
  };
  deferCleanup(() => h.stop());
  return h;
}

/** An event as stored in the stream, with its subject and its `Nats-Msg-Id`. */
export type StreamedEvent = RecordEvent & { subject: string; msgId: string };

/** Every message of a stream, decoded with the contracts' event schema. */
export function readStream(bus: Bus, stream: string): Promise<Array<StreamedEvent>> {
  return readMessages(bus, stream, (data) => RecordEventSchema.parse(data));
}

/** Every message of a stream, decoded with `decode`, with its subject and its `Nats-Msg-Id`. */
export async function readMessages<T>(
  bus: Bus,
  stream: string,
  decode: (data: unknown) => T,
): Promise<Array<T & { subject: string; msgId: string }>> {
  const info = await bus.jsm.streams.info(stream);
  const total = info.state.messages;
  const out: Array<T & { subject: string; msgId: string }> = [];
  if (total === 0) return out;
  const consumer = await bus.js.consumers.get(stream);
  const messages = await consumer.fetch({ max_messages: total, expires: 5000 });
  for await (const m of messages) {
    out.push({ ...decode(m.json()), subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id') ?? '' });
    if (out.length === total) break;
  }
  return out;
}
