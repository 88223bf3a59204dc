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
