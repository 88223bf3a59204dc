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
import type { IngestConfig } from './config.ts';
import { type RecordsApi, recordsClient } from './data/records-client.ts';
import { UploadStore } from './data/uploads.ts';
import { apiRoutes, UPLOAD_PATH } from './http/routes.ts';
import { ingestQueue, ingestWorker } from './jobs/queue.ts';
import { AUDIT_SERVICE, type IngestDeps, processUpload } from './use-cases/uploads.ts';

export interface IngestAppDeps {
  config: IngestConfig;
  db: Connection;
  /** NATS, for the audit trail (the caller connects it and closes it after `stop()`). */
  bus: Bus;
  logger: Logger;
  /** The records service (its HTTP client unless a test gives another). */
  records?: RecordsApi;
}

/**
 * Builds the ingest service: its store of uploads, the audit trail (started), the `ingest` queue,
 * the worker (unless `INGEST_WORKER` is false) and the routes. `stop()` closes the worker (letting
 * its current job end or lapse), the queue and the trail; the caller closes the bus and the database.
 */
export async function createApp({ config, db, bus, logger, records }: IngestAppDeps) {
  const store = new UploadStore(db);
  await store.init();
  const audit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX },
    service: AUDIT_SERVICE,
    logger,
    spool: new MongoAuditSpool(db),
  });
  await audit.start();
  const queueOptions = { redisUrl: config.REDIS_URL, name: config.INGEST_QUEUE, prefix: config.INGEST_QUEUE_PREFIX };
  const queue = ingestQueue(queueOptions);
  const deps: IngestDeps = {
    config,
    store,
    records: records ?? recordsClient(config.RECORDS_URL, parseSigner('ingest', config.IDENTITY_PRIVATE_KEY)),
    enqueue: (data) => queue.add(data),
    logger,
    audit,
  };
  const worker = config.INGEST_WORKER
    ? ingestWorker(
        { ...queueOptions, concurrency: config.INGEST_CONCURRENCY, lockMs: config.INGEST_LOCK_MS, logger },
        (job) => processUpload(deps, job.data),
      )
    : undefined;

  const app = createServiceApp({
    name: 'ingest',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    // NATS is not a readiness condition: while it is down, audit events wait in the spool.
    readiness: {
      mongo: mongoReadiness(db),
      redis: () => queue.ping(),
    },
    rawBodyPaths: [new RegExp(`^${UPLOAD_PATH}$`)],
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
