import { RECORD_IMPORT_MAX_ITEMS } from '@nrad/contracts';
import { auditEnv, baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const IngestConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8085),
  MONGO_DB: z.string().min(1).default('nrad_ingest'),
  REDIS_URL: env.url(),
  /** NATS: the audit trail (issue 21) of uploads accepted and completed, and refusals. */
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  ...auditEnv,
  /** The records service (its internal import path and option lists). */
  RECORDS_URL: env.url(),
  /** The ingest service's own key: it signs what it asks the records service (identity.ts). */
  IDENTITY_PRIVATE_KEY: env.privateKey(),
  /** The BullMQ queue of uploads, and the Redis key prefix of BullMQ's keys (tests: a namespace). */
  INGEST_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ and -')
    .default('ingest'),
  INGEST_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+$/, 'must be letters, digits, _, : and -')
    .default('bull'),
  /** Largest upload accepted, in MB. */
  INGEST_MAX_FILE_MB: count(25),
  /** Largest uncompressed size of an .xlsx's parts, in MB (a zip bomb is refused before parsing). */
  INGEST_MAX_UNCOMPRESSED_MB: count(250),
  /** Most data rows in one file. */
  INGEST_MAX_ROWS: count(100_000),
  /** Longest text of one cell. */
  INGEST_MAX_CELL_CHARS: count(10_000),
  /**
   * Most cells (rows × columns of the sheets) in one file, checked before it is parsed (issue 37):
   * 100,000 rows of the template's 15 columns and 5 more. Parsing costs by cells, not bytes: a 0.6
   * MB file held 10,000,000 cells that took SheetJS 90–100 s and 1.37 GB.
   */
  INGEST_MAX_CELLS: count(2_000_000),
  /**
   * The V8 heap (old generation) a job's file may take to read, in MB: the worker thread reading it
   * is stopped beyond, and the file refused. A 100,000-row file of the template needs about 250.
   */
  INGEST_JOB_MEMORY_MB: z.coerce.number().int().min(32).max(8192).default(512),
  /**
   * How long a job's file may take to read (the worker thread is stopped, the file refused), in
   * seconds; a fraction is allowed. A 100,000-row file of the template takes 10–25 s on 2 cores.
   */
  INGEST_JOB_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(120),
  /**
   * How long an uploaded file is kept for a retry of its job, in hours: the file of an ended job is
   * deleted at once, that of a failed job (or one that never ended) this long after its last move.
   */
  INGEST_KEEP_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  /** Uploads one agency may have queued or being processed at once (issue 37; 0: no limit). */
  INGEST_MAX_QUEUED_JOBS: z.coerce.number().int().min(0).default(3),
  /** MB one agency may upload in 24 hours (0: no limit): ten files of the largest size. */
  INGEST_MAX_MB_PER_DAY: z.coerce.number().int().min(0).default(250),
  /** How long `POST /api/records/batch-upload` waits for its job before answering 202 `{jobId}`. */
  INGEST_WAIT_SECONDS: env.seconds(60),
  /** Jobs one worker runs at once. */
  INGEST_CONCURRENCY: count(1),
  /**
   * Rows sent to the records service per import request (at most, and by default, what its import
   * path takes: RECORD_IMPORT_MAX_ITEMS): the store commits each request's records together, and
   * fewer commits write fewer pages (ADR 0002).
   */
  INGEST_BATCH_ROWS: z.coerce.number().int().min(1).max(RECORD_IMPORT_MAX_ITEMS).default(RECORD_IMPORT_MAX_ITEMS),
  /**
   * Import requests a job keeps in flight: while the store writes one batch, the records service
   * checks the next (at most 4).
   */
  INGEST_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(4).default(2),
  /** How long a job stays with a worker that stopped answering before another takes it up. */
  INGEST_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Whether this process runs the worker (it always serves HTTP). */
  INGEST_WORKER: env.bool(true),
});
export type IngestConfig = z.output<typeof IngestConfigSchema>;

export const loadIngestConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(IngestConfigSchema, source);
