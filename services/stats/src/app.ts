import { type Bus, createServiceApp, ensureStream, type Logger, mongoReadiness } from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { StatsConfig } from './config.ts';
import { StatsStore } from './data/store.ts';
import { StatsModel } from './domain/figures.ts';
import { startRecordConsumer } from './events/record-consumer.ts';
import { apiRoutes } from './http/routes.ts';
import { loadModel, type StatsDeps } from './use-cases/stats.ts';

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
 * stream exists, starts the durable consumer of `records.*` that keeps the model current, and
 * mounts the routes. `stop()` stops the consumer (the caller closes the connections afterwards).
 */
export async function createApp({ config, db, bus, logger, now }: StatsAppDeps) {
  const store = new StatsStore(db);
  await store.init();
  const deps: StatsDeps = {
    store,
    model: new StatsModel(),
    logger,
    now: now ?? (() => new Date()),
    unsaved: new Set(),
  };
  const started = Date.now();
  await loadModel(deps);
  logger.info({ records: deps.model.size, ms: Date.now() - started }, 'read model loaded');

  await ensureStream(bus.jsm, { name: config.RECORDS_STREAM, subjects: [`${config.RECORDS_SUBJECT_PREFIX}.>`] });
  const consumer = await startRecordConsumer({
    bus,
    deps,
    logger,
    stream: config.RECORDS_STREAM,
    subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
    durable: config.RECORDS_CONSUMER,
    ackWaitMs: config.EVENT_ACK_WAIT_MS,
  });

  const app = createServiceApp({
    name: 'stats',
    logger,
    identitySecret: config.IDENTITY_SECRET,
    readiness: { mongo: mongoReadiness(db) },
  });
  const api = apiRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());

  return { app, deps, stop: () => consumer.stop() };
}
