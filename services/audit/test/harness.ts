import { randomUUID } from 'node:crypto';
import {
  type AuditEvent,
  type CaseRecord,
  IDENTITY_HEADER,
  type Organization,
  type RecordEvent,
  recordSubject,
  type UserIdentity,
} from '@nrad/contracts';
import { deferCleanup, type TestNamespace, testNamespace, waitUntil } from '@nrad/infra/harness';
import { auditSubject, type Bus, connectBus, connectMongo, createLogger, publishEvent } from '@nrad/service-kit';
import { testToken } from '@nrad/service-kit/test-identity';
import { type Connection, Types } from 'mongoose';
import request from 'supertest';
import { createApp } from '../src/app.ts';
import type { AuditConfig } from '../src/config.ts';
import { auditTestConfig } from '../src/test-support.ts';

export const logger = createLogger({ name: 'audit-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });

/** A signed-in user of an organization, as the gateway would vouch for them. */
export function userOf(organization: Organization): UserIdentity {
  return {
    kind: 'user',
    userId: new Types.ObjectId().toHexString(),
    name: `${organization} user`,
    organization,
    role: 'Analyst',
  };
}

let made = 0;
/** An audit event as a service publishes it (a new id each time). */
export function auditEvent(over: Partial<AuditEvent> = {}): AuditEvent {
  made++;
  return {
    id: randomUUID(),
    action: 'record.read',
    at: new Date().toISOString(),
    userId: new Types.ObjectId().toHexString(),
    organization: 'BPS',
    recordIds: [],
    requestId: `req-${made}`,
    clientAddress: '10.1.2.3',
    service: 'records',
    ...over,
  };
}

/** A `records.*` event of a record of `organization` (a snapshot as the records service answers it). */
export function recordEvent(
  organization: Organization,
  id = new Types.ObjectId().toHexString(),
  type: RecordEvent['type'] = 'created',
): RecordEvent {
  const by = new Types.ObjectId().toHexString();
  const now = new Date().toISOString();
  const record: CaseRecord = {
    id,
    incidentNumber: `AUD-${id}`,
    suspectName: 'Ann Audit',
    suspectDob: '1980-01-02',
    incidentDate: '2024-03-04',
    caseAmount: '10.00',
    seizedAmount: '0.00',
    confiscatedAmount: '0.00',
    sourceOfRecord: 'Police Investigation',
    namlcOrganization: null,
    internationalNexus: false,
    cyberAssisted: false,
    country: '',
    crimeType: null,
    crimeSubtype: null,
    additionalInfo: null,
    organization,
    createdById: by,
    createdAt: now,
    updatedAt: now,
    deleted: false,
    deletedAt: null,
    deletedById: null,
    version: 1,
    linked: false,
    linkedOrganizations: [],
  };
  return { id: randomUUID(), type, time: now, actor: { userId: by, name: 'Someone', organization }, record };
}

type Built = Awaited<ReturnType<typeof createApp>>;

export interface AuditHarness {
  t: TestNamespace;
  config: AuditConfig;
  db: Connection;
  bus: Bus;
  built: Built;
  /** Publishes an audit event on its subject, with its id as `Nats-Msg-Id` unless another is given. */
  publish(event: AuditEvent, msgId?: string): Promise<void>;
  /** Publishes anything on an audit subject (a poison message). */
  publishRaw(action: string, data: string): Promise<void>;
  /** Publishes a `records.*` event. */
  publishRecord(event: RecordEvent): Promise<void>;
  /** Waits until both consumers have handled (acked or terminated) every message of their streams. */
  caughtUp(): Promise<void>;
  /** Requests as `user` (no user: without an identity token). */
  get(path: string, user?: UserIdentity): Promise<request.Response>;
  /** Stops the service (its consumers and retention; `restart` starts it again). */
  halt(): Promise<void>;
  /** Stops the service if it runs and starts a new instance on the same database and streams. */
  restart(now?: () => Date): Promise<void>;
  stop(): Promise<void>;
}

/** The audit service in process on this test file's namespace (its database, AUDIT and RECORDS streams). */
export async function startAudit(options: { now?: () => Date; retentionDays?: number } = {}): Promise<AuditHarness> {
  const t = testNamespace();
  const config = auditTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('audit'),
    auditStream: t.stream('AUDIT'),
    auditSubjectPrefix: t.subject('audit'),
    recordsStream: t.stream('RECORDS'),
    recordsSubjectPrefix: t.subject('records'),
    ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
  });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  const bus = await connectBus({ url: config.NATS_URL, name: 'audit-test' });
  const start = (now?: () => Date) => createApp({ config, db, bus, logger, ...(now ? { now } : {}) });
  const first = await start(options.now);
  let server = first.app.callback();
  const consumerDone = async (stream: string, durable: string) => {
    const info = await bus.jsm.consumers.info(stream, durable);
    return info.num_pending === 0 && info.num_ack_pending === 0;
  };
  let stopped: Promise<void> | undefined;
  let running = true;
  const h: AuditHarness = {
    t,
    config,
    db,
    bus,
    built: first,
    async publish(event, msgId = event.id) {
      await publishEvent(bus, auditSubject(config, event.action), msgId, event);
    },
    async publishRaw(action, data) {
      await bus.js.publish(`${config.AUDIT_SUBJECT_PREFIX}.${action}`, data);
    },
    async publishRecord(event) {
      await publishEvent(bus, recordSubject(event.type, config.RECORDS_SUBJECT_PREFIX), event.id, event);
    },
    caughtUp: () =>
      waitUntil(
        'audit consumers caught up',
        async () =>
          (await consumerDone(config.AUDIT_STREAM, config.AUDIT_CONSUMER)) &&
          (await consumerDone(config.RECORDS_STREAM, config.RECORDS_CONSUMER)),
        10_000,
      ),
    async get(path, user) {
      const req = request(server).get(path);
      if (user) req.set(IDENTITY_HEADER, await testToken(user));
      return req;
    },
    async halt() {
      if (running) await h.built.stop();
      running = false;
    },
    async restart(now) {
      await h.halt();
      h.built = await start(now);
      server = h.built.app.callback();
      running = true;
    },
    stop() {
      stopped ??= (async () => {
        await h.halt();
        await bus.nc.close();
        await db.close();
      })();
      return stopped;
    },
  };
  deferCleanup(() => h.stop());
  return h;
}
