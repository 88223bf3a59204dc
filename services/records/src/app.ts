import {
  AuditTrail,
  type Bus,
  createServiceApp,
  ensureStream,
  KeyedLock,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { RecordsConfig } from './config.ts';
import { DropdownRepository } from './data/dropdowns.ts';
import { ImportEventsRepository } from './data/import-events.ts';
import { RecordRepository } from './data/records.ts';
import { startLinkConsumer } from './events/link-consumer.ts';
import { OutboxRelay } from './events/outbox-relay.ts';
import { apiRoutes, IMPORT_PATH, IMPORT_PLAN_PATH, internalRoutes } from './http/routes.ts';
import { ListTotals } from './lib/list-totals.ts';
import { connectProbeRedis, ProbeBudget, redisReady } from './lib/probe-budget.ts';
import { DEFAULT_DROPDOWNS } from './use-cases/dropdowns.ts';
import type { RecordDeps } from './use-cases/records.ts';

export interface RecordsAppDeps {
  config: RecordsConfig;
  db: Connection;
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the records service: repositories, default option lists, the RECORDS and LINKS streams,
 * the routes, the outbox relay (started: it publishes whatever an earlier run left pending) and
 * the consumer of `links.created` that keeps the Linked flag (started). `stop()` stops the
 * consumer and the relay (the caller closes the connections afterwards).
 */
export async function createApp({ config, db, bus, logger }: RecordsAppDeps) {
  const records = new RecordRepository(db);
  const imports = new ImportEventsRepository(db);
  const dropdowns = new DropdownRepository(db);
  await records.init();
  await dropdowns.seed(DEFAULT_DROPDOWNS);
  await ensureStream(bus.jsm, { name: config.RECORDS_STREAM, subjects: [`${config.RECORDS_SUBJECT_PREFIX}.>`] });
  // The linking service publishes to LINKS; whichever of the two starts first creates it.
  await ensureStream(bus.jsm, { name: config.LINKS_STREAM, subjects: [`${config.LINKS_SUBJECT_PREFIX}.>`] });

  const auditStream = { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX };
  const audit = new AuditTrail({
    bus,
    stream: auditStream,
    service: 'records',
    logger,
    spool: new MongoAuditSpool(db),
  });
  await audit.start(); // ensures the AUDIT stream: the outbox relays change events to it too

  // Redis holds each user's budget of incident-number probes (docs/adr/0015); not a readiness
  // condition: while it is away the budget is kept in memory.
  const redis = connectProbeRedis(config.REDIS_URL, logger);
  await redisReady(redis, 5000);
  const probes = new ProbeBudget({
    redis,
    prefix: config.REDIS_PREFIX,
    limit: config.INCIDENT_PROBE_LIMIT,
    windowMinutes: config.INCIDENT_PROBE_WINDOW_MINUTES,
    logger,
  });

  const lock = new KeyedLock();
  const relay = new OutboxRelay({
    records,
    imports,
    bus,
    lock,
    logger,
    auditStream,
    retryMs: config.RELAY_RETRY_MS,
    sweepMs: config.RELAY_SWEEP_MS,
    importSweepMs: config.RELAY_IMPORT_SWEEP_MS,
  });
  const deps: RecordDeps = {
    records,
    totals: new ListTotals(config.LIST_TOTAL_TTL_MS),
    imports,
    dropdowns,
    relay,
    lock,
    logger,
    subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
    audit,
    auditStream,
    probes,
  };

  const app = createServiceApp({
    name: 'records',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    // NATS is not a readiness condition: while it is down, changes still succeed and their events
    // wait in the outbox.
    readiness: { mongo: mongoReadiness(db) },
    largeBodyPaths: [
      { path: new RegExp(`^${IMPORT_PATH}$`), limit: '32mb' },
      { path: new RegExp(`^${IMPORT_PLAN_PATH}$`), limit: '32mb' },
    ],
    audit,
  });
  const api = apiRoutes(deps);
  const internal = internalRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());
  app.use(internal.routes()).use(internal.allowedMethods());
  relay.start();
  let links: Awaited<ReturnType<typeof startLinkConsumer>>;
  try {
    links = await startLinkConsumer({
      bus,
      records,
      lock,
      logger,
      stream: config.LINKS_STREAM,
      subjectPrefix: config.LINKS_SUBJECT_PREFIX,
    });
  } catch (err) {
    await relay.stop();
    await audit.stop();
    redis.disconnect();
    throw err;
  }
  const stop = async () => {
    await links.stop();
    await relay.stop();
    await audit.stop();
    await redis.quit().catch(() => redis.disconnect());
  };
  return { app, deps, relay, links, audit, redis, stop };
}
