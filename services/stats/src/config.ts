import { RECORDS_STREAM } from '@nrad/contracts';
import { baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

export const StatsConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8084),
  MONGO_DB: z.string().min(1).default('nrad_stats'),
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  /** Where record events come from (the records service's stream and subjects). */
  RECORDS_STREAM: env.streamName(RECORDS_STREAM),
  RECORDS_SUBJECT_PREFIX: env.subjectPrefix('records'),
  /** The durable consumer of record events (one per deployment). */
  RECORDS_CONSUMER: env.streamName('stats'),
  /**
   * How long an event handed to this service may stay unacknowledged before JetStream delivers it
   * again (milliseconds): events fetched but not yet handled when the service stops come back
   * after this.
   */
  EVENT_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
});
export type StatsConfig = z.output<typeof StatsConfigSchema>;

export const loadStatsConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(StatsConfigSchema, source);
