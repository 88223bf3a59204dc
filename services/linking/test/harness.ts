import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuditEvent, type CaseRecord, type LinkEvent, LinkEventSchema, type UserIdentity } from '@nrad/contracts';
import { deferCleanup, type TestNamespace, testNamespace, waitUntil } from '@nrad/infra/harness';
import {
  consumerCaughtUp,
  recordsBeside,
  type TestApi,
  testApiAs,
  testRecordBody,
  testUser,
} from '@nrad/records-service/test-support';
import { type Bus, connectMongo, createLogger } from '@nrad/service-kit';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import type { Connection } from 'mongoose';
import { createApp } from '../src/app.ts';
import type { LinkingConfig } from '../src/config.ts';
import { linkingTestConfig } from '../src/test-support.ts';

export const logger = createLogger({ name: 'linking-test', level: (process.env.TEST_LOG as 'silent') ?? 'silent' });

/** A signed-in user of an organization (as the gateway would vouch for them). */
export const userOf = testUser;

/** A valid record body; every call a new incident number. */
export const recordBody = (overrides: Record<string, unknown> = {}) => testRecordBody('LNK', overrides);

type Built = Awaited<ReturnType<typeof createApp>>;

export interface LinkingHarness {
  t: TestNamespace;
  config: LinkingConfig;
  bus: Bus;
  db: Connection;
  built: Built;
  /** Requests as a user: the linking paths go to the linking service, the rest to records. */
  as(user: UserIdentity): Promise<TestApi>;
  /** Creates a record as `user` and waits until the linking service has indexed it. */
  create(user: UserIdentity, overrides?: Record<string, unknown>): Promise<CaseRecord>;
  /** Waits until the index holds the record at (at least) this version. */
  indexed(id: string, version?: number): Promise<void>;
  /** Waits until the consumer of `records.*` has handled (acked) every event in the stream. */
  caughtUp(): Promise<void>;
  /** Stops the linking service and starts a new instance on the same database and streams. */
  restart(): Promise<void>;
  /** Every `links.created` in the LINKS stream, once no link waits to be published. */
  linkEvents(): Promise<Array<LinkEvent & { msgId: string }>>;
  /** Every `links.created` in the LINKS stream now, without waiting. */
  linkEventsNow(): Promise<Array<LinkEvent & { msgId: string }>>;
  /**
   * The linking service's audit events in the namespace's AUDIT stream (which the records service
   * beside it publishes to as well), once no link waits to be published and its audit spool is empty.
   */
  settledAudit(): Promise<Array<AuditEvent & { subject: string; msgId: string }>>;
  stop(): Promise<void>;
}

const LINKING_PATH =
  /^\/api\/(records\/((check-namlc-matches|link)|[^/]+\/(links|linked)|[^/]+\/links\/[^/]+(\/restore)?)|links\/summary|possible-matches(\/count|\/labels|\/[^/]+\/(confirm|reject))?)$/;

export async function startLinking(
  options: {
    threshold?: number;
    reviewThreshold?: number;
    autoLink?: boolean;
    /**
     * The linking service behind on `records.*` for good: it consumes a stream nobody publishes to,
     * so it never sees a record (as behind a long backlog); it asks the records service, over
     * HTTP, whose a record is (RECORDS_URL).
     */
    behind?: boolean;
  } = {},
): Promise<LinkingHarness> {
  const t = testNamespace();
  const records = await recordsBeside(t, { logger, name: 'linking-test', links: true });
  const { bus } = records;
  let recordsUrl: string | undefined;
  if (options.behind) {
    const server = createServer(records.server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    deferCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    recordsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const config = linkingTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    dbName: t.db('linking'),
    recordsStream: options.behind ? t.stream('ELSEWHERE') : t.stream('RECORDS'),
    recordsSubjectPrefix: options.behind ? t.subject('elsewhere') : t.subject('records'),
    ...(recordsUrl ? { recordsUrl, recordWaitMs: 300 } : {}),
    linksStream: t.stream('LINKS'),
    linksSubjectPrefix: t.subject('links'),
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    ...(options.reviewThreshold === undefined ? {} : { reviewThreshold: options.reviewThreshold }),
    ...(options.autoLink === undefined ? {} : { autoLink: options.autoLink }),
  });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  const h = { t, config, bus, db, built: await createApp({ config, db, bus, logger }) } as LinkingHarness;
  let linkingServer = h.built.app.callback();

  h.as = (user) => testApiAs(user, (p) => (LINKING_PATH.test(p) ? linkingServer : records.server));
  h.indexed = (id, version = 1) =>
    waitUntil(
      `record ${id} v${version} indexed`,
      async () => (h.built.deps.index.get(id)?.version ?? 0) >= version,
      10_000,
    );
  h.caughtUp = () => consumerCaughtUp(bus, config.RECORDS_STREAM, config.RECORDS_CONSUMER);
  h.create = async (user, overrides = {}) => {
    const api = await h.as(user);
    const record = (await api.post('/api/records').send(recordBody(overrides)).expect(201)).body as CaseRecord;
    await h.indexed(record.id);
    return record;
  };
  h.restart = async () => {
    await h.built.stop();
    h.built = await createApp({ config, db, bus, logger });
    linkingServer = h.built.app.callback();
  };
  h.linkEvents = async () => {
    await waitUntil('links published', async () => h.built.deps.relay.size === 0, 10_000);
    return readLinks(bus, config.LINKS_STREAM);
  };
  h.linkEventsNow = () => readLinks(bus, config.LINKS_STREAM);
  h.settledAudit = async () => {
    await waitUntil('links published', async () => h.built.deps.relay.size === 0, 10_000);
    await waitUntil(
      'audit spool drained',
      async () => (await db.collection('audit_spool').countDocuments({})) === 0,
      20_000,
    );
    const events = await readAuditStream(bus, config.AUDIT_STREAM);
    return events.filter((e) => e.service === 'linking');
  };
  let stopped: Promise<void> | undefined;
  h.stop = () => {
    stopped ??= (async () => {
      await h.built.stop();
      await records.close();
      await db.close();
    })();
    return stopped;
  };
  deferCleanup(() => h.stop());
  return h;
}

/** Every message of the LINKS stream, decoded, with its `Nats-Msg-Id`. */
export async function readLinks(bus: Bus, stream: string): Promise<Array<LinkEvent & { msgId: string }>> {
  const messages = await readMessages(bus, stream, (data) => LinkEventSchema.parse(data));
  return messages.map(({ subject: _subject, ...event }) => event);
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
