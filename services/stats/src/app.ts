import { type Bus, consumeRecordEvents, createServiceApp, type Logger, mongoReadiness } from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { StatsConfig } from './config.ts';
import { StatsStore } from './data/store.ts';
import { StatsModel } from './domain/figures.ts';
import { apiRoutes } from './http/routes.ts';
import { RebuildRefusedError, rebuildReadModel } from './use-cases/rebuild.ts';
import { applyRecordEvents, loadModel, type StatsDeps } from './use-cases/stats.ts';

/**
 * A read model stored before the breakdowns existed (states without `detailed`) is rebuilt from the
 * RECORDS stream before the consumer starts (the stream keeps every record event; 102,000 events
 * took 7.6 s, ADR 0010), so no operator step is needed after an upgrade. If the stream cannot
 * give the whole history, the service runs on with those records counted in `withoutDetail`,
 * which the breakdown (and a report) states.
 */
async function detailModel(deps: StatsDeps, bus: Bus, config: StatsConfig): Promise<void> {
  const outdated = deps.model.figures(null).withoutDetail;
  if (outdated === 0) return;
  deps.logger.info({ outdated }, 'read model predates the breakdowns: rebuilding it from the stream');
  try {
    const report = await rebuildReadModel({
      store: deps.store,
      bus,
      logger: deps.logger,
      stream: config.RECORDS_STREAM,
      subjectPrefix: config.RECORDS_SUBJECT_PREFIX,
      durable: config.RECORDS_CONSUMER,
    });
    deps.model = report.model;
  } catch (err) {
    if (!(err instanceof RebuildRefusedError)) throw err;
    deps.logger.error({ outdated, reason: err.message }, 'read model not rebuilt: breakdowns leave those records out');
  }
}

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
  await detailModel(deps, bus, config);

  const consumer = await consumeRecordEvents(bus, config, (events) => applyRecordEvents(deps, events), logger);

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
