import {
  AuditTrail,
  type Bus,
  consumeRecordEvents,
  createServiceApp,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { StatsConfig } from './config.ts';
import { StatsStore } from './data/store.ts';
import { StatsModel } from './domain/figures.ts';
import { apiRoutes } from './http/routes.ts';
import { rebuildUndetailed } from './use-cases/rebuild.ts';
import { applyRecordEvents, loadModel, type StatsDeps } from './use-cases/stats.ts';

export interface StatsAppDeps {
  config: StatsConfig;
  db: Connection;
  bus: Bus;
  logger: Logger;
  /** The clock ("this month", "this year"); the real one unless a test fixes it. */
  now?: () => Date;
}

/**
 * Builds the stats service: loads every stored record state into the model, makes sure the RECORDS
 * stream exists, starts the durable consumer of `records.*` that keeps the model current and the
 * audit trail, and mounts the routes. `stop()` stops the consumer and the trail (the caller closes
 * the connections afterwards).
 */
export async function createApp({ config, db, bus, logger, now }: StatsAppDeps) {
  const store = new StatsStore(db);
  await store.init();
  const audit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX },
    service: 'stats',
    logger,
    spool: new MongoAuditSpool(db),
  });
  const deps: StatsDeps = {
    store,
    model: new StatsModel(),
    logger,
    now: now ?? (() => new Date()),
    unsaved: new Set(),
    audit,
  };
  const started = Date.now();
  await loadModel(deps);
  logger.info({ records: deps.model.size, ms: Date.now() - started }, 'read model loaded');
  await rebuildUndetailed(deps, {
    bus,
    stream: config.RECORDS_STREAM,
    subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
    durable: config.RECORDS_CONSUMER,
  });

  await audit.start();
  let consumer: Awaited<ReturnType<typeof consumeRecordEvents>>;
  try {
    consumer = await consumeRecordEvents(bus, config, (events) => applyRecordEvents(deps, events), logger);
  } catch (err) {
    await audit.stop();
    throw err;
  }

  const app = createServiceApp({
    name: 'stats',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    readiness: { mongo: mongoReadiness(db) },
    audit,
  });
  const api = apiRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());

  return {
    app,
    deps,
    audit,
    async stop() {
      await consumer.stop();
      await audit.stop();
    },
  };
}
