import {
  AuditTrail,
  type Bus,
  createServiceApp,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
  parseSigner,
  Scope,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { IngestConfig } from './config.ts';
import { type RecordsApi, recordsClient } from './data/records-client.ts';
import { UploadStore } from './data/uploads.ts';
import { apiRoutes, UPLOAD_PATH } from './http/routes.ts';
import { parseUpload } from './jobs/parse.ts';
import { ingestQueue, ingestWorker } from './jobs/queue.ts';
import { AUDIT_SERVICE, type IngestDeps, processUpload, uploadFailed } from './use-cases/uploads.ts';

/** How often the files no longer kept are looked for (INGEST_KEEP_HOURS; also at the start). */
const SWEEP_MS = 10 * 60_000;
const MB = 1024 * 1024;

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
 * the worker (unless `INGEST_WORKER` is false; each job reads its file in a worker thread of its
 * own, jobs/parse.ts) with the sweep of files no longer kept, and the routes. `stop()` closes the
 * worker (letting its current job end or lapse), the sweep, the queue and the trail; the caller
 * closes the bus and the database.
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
    parse: (bytes, kind) =>
      parseUpload(
        {
          bytes,
          kind,
          limits: {
            maxRows: config.INGEST_MAX_ROWS,
            maxCellChars: config.INGEST_MAX_CELL_CHARS,
            maxCells: config.INGEST_MAX_CELLS,
            maxUncompressedBytes: config.INGEST_MAX_UNCOMPRESSED_MB * MB,
          },
        },
        { memoryMb: config.INGEST_JOB_MEMORY_MB, timeoutMs: config.INGEST_JOB_TIMEOUT_SECONDS * 1000 },
      ),
  };
  const worker = config.INGEST_WORKER
    ? ingestWorker(
        { ...queueOptions, concurrency: config.INGEST_CONCURRENCY, lockMs: config.INGEST_LOCK_MS, logger },
        async (job) => {
          try {
            return await processUpload(deps, job.data);
          } catch (err) {
            // Its last attempt: the upload is failed (its file kept INGEST_KEEP_HOURS for a retry).
            if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await uploadFailed(deps, job.data, err);
            throw err;
          }
        },
      )
    : undefined;
  const sweep = config.INGEST_WORKER ? startSweep(store, config.INGEST_KEEP_HOURS, logger) : undefined;

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
      await sweep?.stop();
      await worker?.close();
      await queue.close();
      await audit.stop();
    },
  };
}

/**
 * Deletes the files no longer kept (UploadStore.sweep) at the start and every SWEEP_MS: an ended
 * job's file, and one kept `keepHours` for a retry. A failed sweep is logged and tried again.
 */
function startSweep(store: UploadStore, keepHours: number, logger: Logger) {
  let current: Promise<void> | undefined;
  const run = () => {
    if (current) return; // the one before is still going
    current = store
      .sweep(Scope.system('files of ended upload jobs are deleted'), new Date(Date.now() - keepHours * 3600_000))
      .then(
        (swept) => {
          if (swept.deleted || swept.orphans) logger.info(swept, 'uploaded files no longer kept deleted');
        },
        (err: unknown) => logger.warn({ err }, 'sweep of uploaded files failed'),
      )
      .finally(() => {
        current = undefined;
      });
  };
  run();
  const timer = setInterval(run, SWEEP_MS);
  timer.unref();
  return {
    /** Stops the timer and waits for a sweep under way (the caller closes the database next). */
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
