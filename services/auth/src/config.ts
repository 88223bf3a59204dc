import { auditEnv, baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

export const AuthConfigSchema = z.object({
  ...baseServiceEnv,
  PORT: env.port(8081),
  MONGO_DB: z.string().min(1).default('nrad_auth'),
  /** NATS: the audit trail (issue 21) of ADMIN's actions, account changes and refusals. */
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  ...auditEnv,
  /** The ADMIN account created at start when no user has this email. */
  ADMIN_EMAIL: z.email({ error: 'must be an email address' }),
  ADMIN_PASSWORD: z.string({ error: 'is required' }).min(12, 'must be at least 12 characters'),
  ADMIN_NAME: z.string().min(1).default('System Administrator'),
  /** argon2id cost (OWASP's minimum profile by default: 19 MiB, 2 passes, 1 lane). */
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(8192).default(19_456),
  ARGON2_TIME_COST: z.coerce.number().int().min(1).default(2),
  ARGON2_PARALLELISM: z.coerce.number().int().min(1).default(1),
});
export type AuthConfig = z.output<typeof AuthConfigSchema>;

export const loadAuthConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(AuthConfigSchema, source);
