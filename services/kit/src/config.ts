import { z } from 'zod';
import { type IdentityKeys, parsePublicKeys } from './identity.ts';

/** Thrown at start when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment once, synchronously, with a zod object schema whose keys are variable
 * names. Fails fast with one message naming every offending variable (never their values, which
 * may be secrets).
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration — ${problems.join('; ')}`);
}

/** Reusable pieces of service config schemas. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback),
  url: () => z.url({ error: 'must be a URL' }),
  /** A shared secret: long enough that guessing is hopeless. */
  secret: () => z.string({ error: 'is required' }).min(32, 'must be at least 32 characters'),
  /** The identity tokens' public keys, by issuer (identity.ts: `gateway=<key>,ingest=<key>`). */
  publicKeys: () =>
    z.string({ error: 'is required' }).transform((text, ctx): IdentityKeys => {
      try {
        return parsePublicKeys(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  /** A signer's Ed25519 private key (PKCS#8 DER, base64url), checked when the service starts. */
  privateKey: () => z.string({ error: 'is required' }).min(40, 'must be a PKCS#8 key in base64url'),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  seconds: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** A JetStream stream or consumer name (`RECORDS`, `stats`). */
  streamName: (fallback: string) =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ and -')
      .default(fallback),
  /** The subject tokens before an event's type (`records` of `records.created`). */
  subjectPrefix: (fallback: string) =>
    z
      .string()
      .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be subject tokens separated by dots')
      .default(fallback),
};

/** Variables every service reads. */
export const baseServiceEnv = {
  HOST: z.string().default('127.0.0.1'),
  LOG_LEVEL: env.logLevel(),
  IDENTITY_PUBLIC_KEYS: env.publicKeys(),
  MONGO_URL: env.url(),
};
