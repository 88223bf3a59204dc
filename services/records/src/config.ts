import { LINKS_STREAM, RECORDS_STREAM } from '@nrad/contracts';
import { auditEnv, baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

export const RecordsConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8082),
  MONGO_DB: z.string().min(1).default('nrad_records'),
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  /** The JetStream stream of record events and the first token of its subjects. */
  RECORDS_STREAM: env.streamName(RECORDS_STREAM),
  RECORDS_SUBJECT_PREFIX: env.subjectPrefix('records'),
  /** The JetStream stream of link events (the linking service's) and the first token of its subjects. */
  LINKS_STREAM: env.streamName(LINKS_STREAM),
  LINKS_SUBJECT_PREFIX: env.subjectPrefix('links'),
  /** The audit stream (issue 21): reads, lists and refusals, and each change's event through the outbox. */
  ...auditEnv,
  /** How often the outbox relay retries events it could not publish (milliseconds). */
  RELAY_RETRY_MS: z.coerce.number().int().min(50).default(1000),
  /** How often the whole collection is searched for events not yet published (milliseconds). */
  RELAY_SWEEP_MS: z.coerce.number().int().min(50).default(600_000),
  /**
   * How long a list's total (an agency's active or deleted records, every agency's for ADMIN) is
   * kept before it is counted again (milliseconds; 0: counted for every page). This process's own
   * creates, deletes, restores and imports move it at once; another instance's show within this.
   */
  LIST_TOTAL_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** How often the import outbox is looked at for what a request cut short left (milliseconds). */
  RELAY_IMPORT_SWEEP_MS: z.coerce.number().int().min(50).default(5000),
  /** Redis: each user's budget of incident numbers found held by other agencies (docs/adr/0015). */
  REDIS_URL: env.url(),
  /** The first part of this service's Redis keys (tests: a namespace). */
  REDIS_PREFIX: z.string().default('nrad:records:'),
  /**
   * How many incident numbers held by another organization one user may be refused (409, a row
   * error) within a window; once spent, the user's creates, edits of the number and uploads are
   * refused (429; an upload stops) until the window ends. ADMIN is not counted.
   */
  INCIDENT_PROBE_LIMIT: z.coerce.number().int().min(1).default(20),
  /** That window, from the user's first counted write in it (minutes, at most a day). */
  INCIDENT_PROBE_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1440).default(60),
});
export type RecordsConfig = z.output<typeof RecordsConfigSchema>;

export const loadRecordsConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(RecordsConfigSchema, source);
