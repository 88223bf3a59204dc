import {
  AdminStatsSchema,
  type AuditEvent,
  type CaseRecord,
  type CountryStat,
  CountryStatsSchema,
  type DashboardStats,
  DashboardStatsSchema,
  type RecordEvent,
  RecordFieldsSchema,
  recordSubject,
  StatsBreakdownSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { deferCleanup, type TestNamespace, testNamespace, waitUntil } from '@nrad/infra/harness';
import {
  consumerCaughtUp,
  recordsBeside,
  type TestApi,
  testApiAs,
  testRecordBody,
  testUser,
} from '@nrad/records-service/test-support';
import { type Bus, connectMongo, createLogger, publishEvent } from '@nrad/service-kit';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import { type Connection, Types } from 'mongoose';
import type request from 'supertest';
import { expect } from 'vitest';
import { createApp } from '../src/app.ts';
import type { StatsConfig } from '../src/config.ts';
import { StatsStore } from '../src/data/store.ts';
import { type DirectStats, directStats, statsTestConfig } from '../src/test-support.ts';
import { type RebuildReport, rebuildReadModel } from '../src/use-cases/rebuild.ts';

export const logger = createLogger({ name: 'stats-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });

/** A signed-in user of an organization (as the gateway would vouch for them). */
export const userOf = testUser;

export const YEAR = new Date().getUTCFullYear();

/** A valid record body; every call a new incident number. Incident date: this year. */
export const recordBody = (overrides: Record<string, unknown> = {}) =>
  testRecordBody('STA', { incidentDate: `${YEAR}-01-01`, ...overrides });

type Built = Awaited<ReturnType<typeof createApp>>;

export interface StatsHarness {
  t: TestNamespace;
  config: StatsConfig;
  bus: Bus;
  db: Connection;
  recordsDb: Connection;
  built: Built;
  /** Requests as a user: the stats paths go to the stats service, the rest to records. */
  as(user: UserIdentity): Promise<TestApi>;
  /** Creates a record as `user` and waits until the stats have applied it. */
  create(user: UserIdentity, overrides?: Record<string, unknown>): Promise<CaseRecord>;
  /** Edits (PUT with the record's fields and `overrides`), deletes or restores, and waits for the stats. */
  edit(user: UserIdentity, record: CaseRecord, overrides: Record<string, unknown>): Promise<CaseRecord>;
  remove(user: UserIdentity, record: CaseRecord): Promise<CaseRecord>;
  restore(user: UserIdentity, record: CaseRecord): Promise<CaseRecord>;
  /** Waits until the model holds the record at (at least) this version. */
  applied(id: string, version: number): Promise<void>;
  /** Waits until the consumer has handled (acked) every event in the stream. */
  caughtUp(): Promise<void>;
  /** Publishes an event to the RECORDS stream as the records service would (a new message id by default). */
  publish(event: RecordEvent, msgId?: string): Promise<void>;
  /** `GET /api/stats` and `GET /api/stats/countries` as `user`, checked against their schemas. */
  stats(user: UserIdentity): Promise<DashboardStats>;
  countries(user: UserIdentity): Promise<CountryStat[]>;
  /** The four stats paths (the admin counts as ADMIN) for `user`. */
  read(user: UserIdentity): Promise<DirectStats>;
  /** Asserts that what `user` reads equals the direct count over the records database. */
  expectDirect(user: UserIdentity): Promise<void>;
  /**
   * Stops the stats service and starts a new instance on the same database and stream, with the
   * given clock (default the real one); `expectDirect` counts at that clock's time.
   */
  restart(now?: () => Date): Promise<void>;
  /** Stops the stats service (records go on; `restart` starts it again). */
  halt(): Promise<void>;
  /** Stops the stats service, rebuilds its read model from the stream, starts it again. */
  rebuild(): Promise<RebuildReport>;
  /** The stats service's events of the audit stream, once its spool is empty. */
  auditEvents(): Promise<Array<AuditEvent & { subject: string; msgId: string }>>;
  stop(): Promise<void>;
}

const STATS_PATH = /^\/api\/(stats(\/countries|\/breakdown)?|admin\/stats)$/;

export async function startStats(): Promise<StatsHarness> {
  const t = testNamespace();
  const records = await recordsBeside(t, { logger, name: 'stats-test' });
  const { bus, config: recordsConfig, db: recordsDb } = records;
  const config = statsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('stats'),
    recordsStream: recordsConfig.RECORDS_STREAM,
    recordsSubjectPrefix: recordsConfig.RECORDS_SUBJECT_PREFIX,
    auditStream: t.stream('AUDIT'),
    auditSubjectPrefix: t.subject('audit'),
  });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  const h = { t, config, bus, db, recordsDb, built: await createApp({ config, db, bus, logger }) } as StatsHarness;
  let statsServer = h.built.app.callback();
  let running = true;

  h.as = (user) => testApiAs(user, (p) => (STATS_PATH.test(p) ? statsServer : records.server));
  h.applied = (id, version) =>
    waitUntil(
      `record ${id} v${version} applied`,
      async () => (h.built.deps.model.versionOf(id) ?? 0) >= version,
      10_000,
    );
  h.caughtUp = () => consumerCaughtUp(bus, config.RECORDS_STREAM, config.RECORDS_CONSUMER);
  const changed = async (res: request.Response) => {
    const record = res.body as CaseRecord;
    if (running) await h.applied(record.id, record.version);
    return record;
  };
  h.create = async (user, overrides = {}) =>
    changed(await (await h.as(user)).post('/api/records').send(recordBody(overrides)).expect(201));
  h.edit = async (user, record, overrides) => {
    const fields = Object.fromEntries(
      Object.keys(RecordFieldsSchema.shape).map((k) => [k, record[k as keyof CaseRecord]]),
    );
    return changed(
      await (await h.as(user))
        .put(`/api/records/${record.id}`)
        .send({ ...fields, ...overrides, version: record.version })
        .expect(200),
    );
  };
  h.remove = async (user, record) => changed(await (await h.as(user)).delete(`/api/records/${record.id}`).expect(200));
  h.restore = async (user, record) =>
    changed(await (await h.as(user)).post(`/api/records/${record.id}/restore`).expect(200));
  h.publish = async (event, msgId = new Types.ObjectId().toHexString()) => {
    await publishEvent(bus, recordSubject(event.type, config.RECORDS_SUBJECT_PREFIX), msgId, event);
  };
  const get = async (user: UserIdentity, path: string) => (await (await h.as(user)).get(path).expect(200)).body;
  h.stats = async (user) => DashboardStatsSchema.parse(await get(user, '/api/stats'));
  h.countries = async (user) => CountryStatsSchema.parse(await get(user, '/api/stats/countries'));
  h.read = async (user) => {
    const { asOf: _, ...breakdown } = StatsBreakdownSchema.parse(await get(user, '/api/stats/breakdown'));
    return {
      stats: await h.stats(user),
      countries: await h.countries(user),
      admin: AdminStatsSchema.parse(await get(userOf('ADMIN'), '/api/admin/stats')),
      breakdown,
    };
  };
  let clock = () => new Date();
  h.expectDirect = async (user) => {
    const direct = await directStats(recordsDb, user.organization === 'ADMIN' ? null : user.organization, clock());
    expect(await h.read(user)).toEqual(direct);
  };
  h.restart = async (now = () => new Date()) => {
    if (running) await h.built.stop();
    clock = now;
    h.built = await createApp({ config, db, bus, logger, now });
    statsServer = h.built.app.callback();
    running = true;
  };
  h.halt = async () => {
    if (running) await h.built.stop();
    running = false;
  };
  h.rebuild = async () => {
    await h.halt();
    const report = await rebuildReadModel({
      store: new StatsStore(db),
      bus,
      logger,
      stream: config.RECORDS_STREAM,
      subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
      durable: config.RECORDS_CONSUMER,
    });
    await h.restart();
    return report;
  };
  h.auditEvents = async () => {
    await waitUntil(
      'audit spool drained',
      async () => !h.built.audit.pending && (await db.collection('audit_spool').countDocuments({})) === 0,
      20_000,
    );
    return (await readAuditStream(bus, config.AUDIT_STREAM)).filter((e) => e.service === 'stats');
  };
  let stopped: Promise<void> | undefined;
  h.stop = () => {
    stopped ??= (async () => {
      if (running) await h.built.stop();
      await records.close();
      await db.close();
    })();
    return stopped;
  };
  deferCleanup(() => h.stop());
  return h;
}
