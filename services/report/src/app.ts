import {
  AuditTrail,
  type Bus,
  createServiceApp,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
  parseSigner,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { ReportConfig } from './config.ts';
import { type FiguresApi, figuresClient } from './data/figures-client.ts';
import { type ReportWriter, writerFor } from './data/model.ts';
import { ReportStore } from './data/reports.ts';
import { apiRoutes } from './http/routes.ts';
import { reportQueue, reportWorker } from './jobs/queue.ts';
import { type ReportDeps, writeReport } from './use-cases/reports.ts';

export interface ReportAppDeps {
  config: ReportConfig;
  db: Connection;
  /** NATS, for the audit trail (the caller connects it and closes it after `stop()`). */
  bus: Bus;
  logger: Logger;
  /** The stats and linking services (their HTTP client unless a test gives another). */
  figures?: FiguresApi;
  /** Who writes reports (by default the model OPENAI_MODEL names, or the template). */
  writer?: ReportWriter;
  now?: () => Date;
}

/**
 * Builds the report service: its store, the audit trail (started), the `report` queue, the worker
 * (unless REPORT_WORKER is false) and the routes. `stop()` closes the worker (letting its current
 * jobs end or lapse), the queue and the trail; the caller closes the bus and the database.
 */
export async function createApp({ config, db, bus, logger, figures, writer, now }: ReportAppDeps) {
  const store = new ReportStore(db);
  await store.init();
  const audit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX },
    service: 'report',
    logger,
    spool: new MongoAuditSpool(db),
  });
  await audit.start();
  const queue = reportQueue({
    redisUrl: config.REDIS_URL,
    name: config.REPORT_QUEUE,
    prefix: config.REPORT_QUEUE_PREFIX,
    attempts: config.REPORT_ATTEMPTS,
  });
  const deps: ReportDeps = {
    config,
    store,
    figures:
      figures ??
      figuresClient(
        { stats: config.STATS_URL, linking: config.LINKING_URL },
        parseSigner('report', config.IDENTITY_PRIVATE_KEY),
      ),
    writer: writer ?? writerFor(config),
    queue,
    logger,
    now: now ?? (() => new Date()),
    audit,
  };
  const worker = config.REPORT_WORKER
    ? reportWorker(
        {
          redisUrl: config.REDIS_URL,
          name: config.REPORT_QUEUE,
          prefix: config.REPORT_QUEUE_PREFIX,
          concurrency: config.REPORT_CONCURRENCY,
          lockMs: config.REPORT_LOCK_MS,
          logger,
        },
        (job) => writeReport(deps, job),
      )
    : undefined;
  logger.info({ writer: deps.writer.model, worker: config.REPORT_WORKER }, 'report writer');

  const app = createServiceApp({
    name: 'report',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    // NATS is not a readiness condition: while it is down, audit events wait in the spool.
    readiness: {
      mongo: mongoReadiness(db),
      redis: () => queue.ping(),
    },
    audit,
  });
  const api = apiRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());

  return {
    app,
    deps,
    audit,
    async stop() {
      await worker?.close();
      await queue.close();
      await audit.stop();
    },
  };
}
