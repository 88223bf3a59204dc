import {
  type CaseRecord,
  IDENTITY_HEADER,
  type Organization,
  type RecordEvent,
  type UserIdentity,
} from '@nrad/contracts';
import { waitUntil } from '@nrad/infra';
import type { TestNamespace } from '@nrad/infra/harness/namespace';
import { type Bus, connectBus, connectMongo, GRANT_HEADER, type Logger, signGrant } from '@nrad/service-kit';
import { TEST_GATEWAY_SIGNER, testIdentityEnv, testToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import { createApp } from './app.ts';
import { type RecordsConfig, RecordsConfigSchema } from './config.ts';

/**
 * Records configuration for tests: the given database, streams, subject prefixes and Redis key
 * prefix (`redisPrefix`, the namespace's: `t1a2b3c:` → keys under `t1a2b3c:records:`); fast retries.
 * `overrides` sets any other variable (`INCIDENT_PROBE_LIMIT`, say).
 * The LINKS and AUDIT streams and prefixes default to the siblings of the records ones
 * (`t1a2b3c_RECORDS` → `t1a2b3c_LINKS`, `t1a2b3c.records` → `t1a2b3c.links`, else `<stream>_LINKS`,
 * `<prefix>_links`; the same with AUDIT and audit):
 * in the test's namespace, so parallel files never share them, and the names a linking service of
 * the same namespace uses.
 */
export function recordsTestConfig(options: {
  mongoUrl: string;
  natsUrl: string;
  redisUrl: string;
  redisPrefix: string;
  dbName: string;
  stream: string;
  subjectPrefix: string;
  linksStream?: string;
  linksSubjectPrefix?: string;
  auditStream?: string;
  auditSubjectPrefix?: string;
  retryMs?: number;
  sweepMs?: number;
  importSweepMs?: number;
  listTotalTtlMs?: number;
  overrides?: Record<string, string>;
}): RecordsConfig {
  return RecordsConfigSchema.parse({
    ...testIdentityEnv('records'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: `${options.redisPrefix}records:`,
    RECORDS_STREAM: options.stream,
    RECORDS_SUBJECT_PREFIX: options.subjectPrefix,
    LINKS_STREAM: options.linksStream ?? sibling(options.stream, /(^|_)RECORDS$/, 'LINKS', '_'),
    LINKS_SUBJECT_PREFIX: options.linksSubjectPrefix ?? sibling(options.subjectPrefix, /(^|\.)records$/, 'links', '_'),
    AUDIT_STREAM: options.auditStream ?? sibling(options.stream, /(^|_)RECORDS$/, 'AUDIT', '_'),
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix ?? sibling(options.subjectPrefix, /(^|\.)records$/, 'audit', '_'),
    RELAY_RETRY_MS: String(options.retryMs ?? 100),
    RELAY_SWEEP_MS: String(options.sweepMs ?? 60_000),
    RELAY_IMPORT_SWEEP_MS: String(options.importSweepMs ?? 60_000),
    ...(options.listTotalTtlMs !== undefined ? { LIST_TOTAL_TTL_MS: String(options.listTotalTtlMs) } : {}),
    LOG_LEVEL: 'silent',
    ...options.overrides,
  });
}

/** `name` with its last token `pattern` replaced by `token`, or `token` appended after `separator`. */
function sibling(name: string, pattern: RegExp, token: string, separator: string): string {
  return pattern.test(name) ? name.replace(pattern, `$1${token}`) : `${name}${separator}${token}`;
}

/** A signed-in user of an organization, as the gateway would vouch for them. */
export function testUser(organization: Organization, name = `${organization} user`): UserIdentity {
  return { kind: 'user', userId: new Types.ObjectId().toHexString(), name, organization, role: 'Analyst' };
}

/** A `records.*` event as the records service publishes it, around a snapshot it answered with. */
export function testRecordEvent(type: RecordEvent['type'], record: CaseRecord, by: UserIdentity): RecordEvent {
  return {
    id: crypto.randomUUID(),
    type,
    time: new Date().toISOString(),
    actor: { userId: by.userId, name: by.name, organization: record.organization },
    record,
  };
}

let bodies = 0;
/** A valid `POST /api/records` body; every call a new incident number starting with `prefix`. */
export function testRecordBody(prefix: string, overrides: Record<string, unknown> = {}) {
  bodies += 1;
  return {
    incidentNumber: `${prefix}-${Date.now().toString(36)}-${bodies}`,
    suspectName: 'John Smith',
    suspectDob: '1980-05-17',
    incidentDate: '2024-03-02',
    caseAmount: '1500.00',
    seizedAmount: '0',
    confiscatedAmount: '0',
    sourceOfRecord: 'Police Investigation',
    internationalNexus: false,
    cyberAssisted: false,
    ...overrides,
  };
}

/** Requests of one user to services in process (supertest). */
export interface TestApi {
  get(path: string): request.Test;
  post(path: string): request.Test;
  put(path: string): request.Test;
  delete(path: string): request.Test;
}

type Handler = Parameters<typeof request>[0];

/**
 * Requests as `user`, with an identity token the gateway's test key signed, each sent to the
 * service that `route` picks for its path (without the query string): services under test side by
 * side. `grantTo`: with a grant for that service too, as the gateway sends with a route that asks
 * for one (a report).
 */
export async function testApiAs(
  user: UserIdentity,
  route: (path: string) => Handler,
  grantTo?: string,
): Promise<TestApi> {
  const headers = {
    [IDENTITY_HEADER]: await testToken(user),
    ...(grantTo ? { [GRANT_HEADER]: await signGrant(user, grantTo, TEST_GATEWAY_SIGNER) } : {}),
  };
  const to = (p: string) => request(route(p.split('?')[0] ?? ''));
  return {
    get: (p) => to(p).get(p).set(headers),
    post: (p) => to(p).post(p).set(headers),
    put: (p) => to(p).put(p).set(headers),
    delete: (p) => to(p).delete(p).set(headers),
  };
}

/**
 * The records service running beside another service under test, in namespace `t` (its
 * database, its RECORDS stream and, with `links`, its LINKS stream, its Redis keys): the config
 * the other service follows, a bus for both to share, and the app to route records paths to.
 * `overrides` sets other variables of its config. `close` stops it and closes the bus and its database.
 */
export async function recordsBeside(
  t: TestNamespace,
  options: {
    logger: Logger;
    name: string;
    links?: boolean;
    overrides?: Record<string, string>;
  },
) {
  const config = recordsTestConfig({
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    redisUrl: t.redisUrl,
    redisPrefix: t.redisPrefix,
    dbName: t.db('records'),
    stream: t.stream('RECORDS'),
    subjectPrefix: t.subject('records'),
    ...(options.links ? { linksStream: t.stream('LINKS'), linksSubjectPrefix: t.subject('links') } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  const bus = await connectBus({ url: t.natsUrl, name: options.name });
  const built = await createApp({ config, db, bus, logger: options.logger });
  return {
    config,
    db,
    bus,
    built,
    server: built.app.callback(),
    async close() {
      await built.stop();
      await bus.nc.close();
      await db.close();
    },
  };
}

/** Waits until a durable consumer has handled (acked) every event of its stream. */
export function consumerCaughtUp(bus: Bus, stream: string, consumer: string, timeoutMs = 10_000): Promise<void> {
  return waitUntil(
    'consumer caught up',
    async () => {
      const info = await bus.jsm.consumers.info(stream, consumer);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    timeoutMs,
  );
}
