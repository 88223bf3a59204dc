import { type Bus, busReadiness, createServiceApp, type Logger, mongoReadiness } from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { AuditConfig } from './config.ts';
import { RecordOwners } from './data/owners.ts';
import { AuditStore } from './data/store.ts';
import { startAuditWriter } from './events/audit-writer.ts';
import { startOwnerConsumer } from './events/record-owners.ts';
import { apiRoutes } from './http/routes.ts';
import { scheduleRetention } from './jobs/retention.ts';

export interface AuditAppDeps {
  config: AuditConfig;
  db: Connection;
  bus: Bus;
  logger: Logger;
  /** The clock of retention; the real one unless a test fixes it. */
  now?: () => Date;
}

/**
 * Builds the audit service: its store and the record owners, the writer (the durable consumer of
 * `audit.>` that appends each event to the chain), the consumer of `records.>` that keeps the
 * owners, retention on its schedule, and `GET /api/audit`. `stop()` stops retention and both
 * consumers (the caller closes the connections afterwards).
 */
export async function createApp({ config, db, bus, logger, now }: AuditAppDeps) {
  const store = new AuditStore(db);
  const owners = new RecordOwners(db);
  await Promise.all([store.init(), owners.init()]);

  const writer = await startAuditWriter({ bus, config, store, logger });
  const ownerConsumer = await startOwnerConsumer(bus, config, owners, logger);
  const retention = scheduleRetention({
    store,
    logger,
    days: config.AUDIT_RETENTION_DAYS,
    everyHours: config.AUDIT_RETENTION_CHECK_HOURS,
    ...(now ? { now } : {}),
  });

  const app = createServiceApp({
    name: 'audit',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    readiness: { mongo: mongoReadiness(db), nats: busReadiness(bus) },
  });
  const api = apiRoutes({ store, owners });
  app.use(api.routes()).use(api.allowedMethods());

  return {
    app,
    store,
    owners,
    retention,
    async stop() {
      await retention.stop();
      await Promise.all([writer.stop(), ownerConsumer.stop()]);
    },
  };
}
