import { auditEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

const minutes = (fallback: number) => z.coerce.number().positive().default(fallback);
const perMinute = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** MF_REMOTES: `{"<remote>": "<URL of its mf-manifest.json>"}`, an absolute URL or a path. */
const remotesSchema = z
  .string()
  .default('{}')
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of remote name to manifest URL' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().regex(/^[a-z][a-z0-9-]*$/, 'remote names are lower-case words'),
      z
        .string()
        .refine(
          (u) => u.startsWith('/') || /^https?:\/\//.test(u),
          'each remote needs an http(s) URL or a path on the gateway',
        ),
    ),
  );

export const GatewayConfigSchema = z.object({
  HOST: z.string().default('0.0.0.0'),
  PORT: env.port(8080),
  /**
   * Where Prometheus scrapes the gateway's /metrics: an internal address, never the public port
   * (compose: 0.0.0.0 inside its network, not published; npm start: 127.0.0.1).
   */
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_PORT: env.port(9464),
  LOG_LEVEL: env.logLevel(),
  REDIS_URL: env.url(),
  /** Sign-ins, failures, lockouts and sign-outs are published to the audit stream (issue 21). */
  NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
  ...auditEnv,
  /** Prefix of every Redis key the gateway writes (sessions, counters). */
  REDIS_PREFIX: z.string().default('nrad:gateway:'),
  /** The gateway's Ed25519 key: it signs every identity token and grant (identity.ts). */
  IDENTITY_PRIVATE_KEY: env.privateKey(),
  /** Cookie signing keys, comma-separated; the first signs, all verify (rotation). */
  SESSION_SECRET: env.secret(),
  SESSION_IDLE_MINUTES: minutes(30),
  SESSION_ABSOLUTE_HOURS: minutes(12),
  /**
   * Failed sign-ins of one account from one address within the window before that address must
   * wait to try it again (issue 37: the owner elsewhere is not held up): LOGIN_FIRST_DELAY_SECONDS,
   * doubled with each further failure, at most LOGIN_LOCK_MINUTES.
   */
  LOGIN_MAX_FAILURES: z.coerce.number().int().positive().default(5),
  LOGIN_FAILURE_WINDOW_MINUTES: minutes(15),
  LOGIN_FIRST_DELAY_SECONDS: z.coerce.number().positive().default(30),
  LOGIN_LOCK_MINUTES: minutes(30),
  /** Failed sign-ins from one address within the window before that address must wait. */
  LOGIN_IP_MAX_FAILURES: z.coerce.number().int().positive().default(30),
  LOGIN_IP_WINDOW_MINUTES: minutes(15),
  /** Registrations from one address per hour. */
  REGISTER_IP_MAX_PER_HOUR: z.coerce.number().int().positive().default(100),
  /**
   * Requests per signed-in user (ADMIN too) per minute, by kind (issue 34; routes.ts says which
   * paths count as which). Over a limit: 429 with Retry-After, and the request does not reach the
   * service. 0 turns a limit off.
   */
  USER_LIMIT_NAMLC_CHECKS_PER_MINUTE: perMinute(30),
  /** Link attempts: POST /api/records/link, rejecting a link and ADMIN's restore of one. */
  USER_LIMIT_LINK_ATTEMPTS_PER_MINUTE: perMinute(30),
  USER_LIMIT_SEARCHES_PER_MINUTE: perMinute(120),
  /** Pages of GET /api/records, /api/records/deleted and /api/admin/records. */
  USER_LIMIT_LIST_PAGES_PER_MINUTE: perMinute(240),
  /**
   * A security alert (audit `security.alert`, listed in the operations console) when one user has
   * this many link attempts answered 404 within the window; one alert per user and window.
   */
  ALERT_LINK_REFUSALS: z.coerce.number().int().positive().default(10),
  ALERT_LINK_REFUSALS_WINDOW_MINUTES: minutes(10),
  /** The same for requests refused over the per-user limits above. */
  ALERT_RATE_LIMITS: z.coerce.number().int().positive().default(3),
  ALERT_RATE_LIMITS_WINDOW_MINUTES: minutes(10),
  /** Take the client address from X-Forwarded-For (only behind a proxy you trust). */
  TRUST_PROXY: env.bool(false),
  /**
   * How long a service may take to answer a proxied request (longer than the 120 s a report
   * request waits for its job before it answers 202).
   */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(130_000),
  /** Where the built frontends are (`<dir>/shell/dist`, `<dir>/<remote>/dist`). */
  FRONTENDS_DIR: z.string().min(1).default('frontends'),
  /** Remotes served from elsewhere than this gateway, or moved (see frontends.ts). */
  MF_REMOTES: remotesSchema,
  AUTH_URL: env.url(),
  RECORDS_URL: env.url(),
  LINKING_URL: env.url(),
  STATS_URL: env.url(),
  INGEST_URL: env.url(),
  REPORT_URL: env.url(),
  /** The ops service: GET /api/admin/operations and the queue board (/admin/queues). */
  OPS_URL: env.url(),
  /** The audit service: GET /api/audit (ADR 0014). */
  AUDIT_URL: env.url(),
});
export type GatewayConfig = z.output<typeof GatewayConfigSchema>;

export const loadGatewayConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(GatewayConfigSchema, source);
