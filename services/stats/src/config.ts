import { auditEnv, baseServiceEnv, env, loadConfig, recordEventsEnv } from '@nrad/service-kit';
import { z } from 'zod';

export const StatsConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8084),
  MONGO_DB: z.string().min(1).default('nrad_stats'),
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  ...recordEventsEnv('stats'),
  /** The audit stream (issue 21): ADMIN's reads of the agencies' counts, and refusals. */
  ...auditEnv,
});
export type StatsConfig = z.output<typeof StatsConfigSchema>;

export const loadStatsConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(StatsConfigSchema, source);
