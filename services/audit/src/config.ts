import { auditEnv, baseServiceEnv, env, loadConfig, recordEventsEnv } from '@nrad/service-kit';
import { z } from 'zod';

export const AuditConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8088),
  MONGO_DB: z.string().min(1).default('nrad_audit'),
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  /** The AUDIT stream and its subjects' prefix (the same variables the publishing services read). */
  ...auditEnv,
  /** The durable consumer of `audit.>` that stores each event in the chain (one per deployment). */
  AUDIT_CONSUMER: env.streamName('audit-writer'),
  /** Record ownership (`record_owners`) from the RECORDS stream, through this durable consumer. */
  ...recordEventsEnv('audit'),
  /** Entries are kept at least this many days; older ones are removed from the start of the chain. */
  AUDIT_RETENTION_DAYS: z.coerce
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'must be at least 1')
    .default(400),
  /** How often retention runs (hours; also once at start). At most 500: a timer holds 24.8 days. */
  AUDIT_RETENTION_CHECK_HOURS: z.coerce
    .number({ error: 'must be a number of hours' })
    .positive('must be more than 0')
    .max(500, 'must be at most 500')
    .default(24),
});
export type AuditConfig = z.output<typeof AuditConfigSchema>;

export const loadAuditConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(AuditConfigSchema, source);
