import { auditEnv, baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

const NAME = /^[a-z][a-z0-9-]*$/;

/** `auth=http://127.0.0.1:8081,records=http://…`: the services whose readiness and build are shown. */
const servicesSchema = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const entries: Array<{ name: string; url: string }> = [];
    for (const part of text.split(',').map((p) => p.trim())) {
      if (!part) continue;
      const at = part.indexOf('=');
      const name = part.slice(0, at);
      const url = part.slice(at + 1);
      if (at < 1 || !NAME.test(name) || !z.url().safeParse(url).success) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not name=http(s) URL` });
        return z.NEVER;
      }
      entries.push({ name, url: url.replace(/\/+$/, '') });
    }
    return entries;
  });

const listSchema = z
  .string()
  .default('ingest,report')
  .transform((text) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]+$/, 'queue names are letters, digits, _ and -')));

export const OpsConfigSchema = z.object({
  ...baseServiceEnv,
  // The ops service keeps nothing of its own: it reads NATS, Redis and the services.
  MONGO_URL: env.url().optional(),
  PORT: env.port(8087),
  NATS_URL: env.url(),
  REDIS_URL: env.url(),
  /** The BullMQ queues shown (and handled on the queue board), and the prefix of their keys. */
  OPS_QUEUES: listSchema,
  OPS_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+$/, 'must be letters, digits, _, : and -')
    .default('bull'),
  /** The services whose /readyz (readiness and build) is shown. */
  OPS_SERVICES: servicesSchema,
  /**
   * Only the JetStream streams whose names start with this (default: every stream of the account;
   * tests: their namespace).
   */
  OPS_STREAM_PREFIX: z.string().default(''),
  /** The audit stream (issue 21): ADMIN's reads of the operations and actions on the queue board. */
  ...auditEnv,
  /** Prefix of the Redis keys ops writes itself: its audit spool (events NATS did not take yet). */
  REDIS_PREFIX: z.string().default('nrad:ops:'),
  /**
   * The gateway's REDIS_PREFIX (on the same Redis): its security alerts are read from
   * `<this>security-alerts` (issue 34).
   */
  OPS_GATEWAY_REDIS_PREFIX: z.string().default('nrad:gateway:'),
});
export type OpsConfig = z.output<typeof OpsConfigSchema>;

export const loadOpsConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(OpsConfigSchema, source);
