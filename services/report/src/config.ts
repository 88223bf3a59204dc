import { auditEnv, baseServiceEnv, env, loadConfig } from '@nrad/service-kit';
import { z } from 'zod';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An optional text variable: unset and blank are the same (compose files pass blanks). */
const optionalText = () =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().trim().optional());

export const ReportConfigSchema = z
  .object({
    ...baseServiceEnv,
    PORT: env.port(8086),
    MONGO_DB: z.string().min(1).default('nrad_report'),
    REDIS_URL: env.url(),
    /** NATS: the audit trail (issue 21) of reports asked for and read, and refusals. */
    NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
    ...auditEnv,
    /** The services that own the figures: asked with the caller's identity, never read directly. */
    STATS_URL: env.url(),
    /** The report service's own key: it signs each question for figures on the requester's behalf. */
    IDENTITY_PRIVATE_KEY: env.privateKey(),
    LINKING_URL: env.url(),
    /** The BullMQ queue of reports, and the Redis key prefix of BullMQ's keys (tests: a namespace). */
    REPORT_QUEUE: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ and -')
      .default('report'),
    REPORT_QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_:-]+$/, 'must be letters, digits, _, : and -')
      .default('bull'),
    /** How long `POST /api/generate-report` waits for its job before answering 202 `{jobId}`. */
    REPORT_WAIT_SECONDS: env.seconds(120),
    /** Jobs one worker runs at once (most of a job's time is the model's: it waits, not computes). */
    REPORT_CONCURRENCY: count(4),
    /**
     * Reports one user may have queued or being written at once; one more is refused (429) until
     * one ends, so no one can queue hundreds of model calls.
     */
    REPORT_MAX_PENDING_PER_USER: count(3),
    /** Attempts of a job that failed for a reason that may pass (a service or the model unreachable). */
    REPORT_ATTEMPTS: count(2),
    /** How long a job stays with a worker that stopped answering before another takes it up. */
    REPORT_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
    /** Whether this process runs the worker (it always serves HTTP). */
    REPORT_WORKER: env.bool(true),
    /**
     * The model (any OpenAI-compatible server: OpenAI, Azure OpenAI's v1 endpoint, vLLM, Ollama,
     * llama.cpp). Without OPENAI_MODEL no model is configured: reports are written from a template
     * and say so. OPENAI_BASE_URL defaults to OpenAI's; a local server usually needs no key.
     */
    OPENAI_MODEL: optionalText(),
    OPENAI_API_KEY: optionalText(),
    OPENAI_BASE_URL: z.preprocess(
      (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
      env.url().optional(),
    ),
    /** How long one model request may take, and how often the SDK retries one (429, 5xx, timeouts). */
    OPENAI_TIMEOUT_SECONDS: env.seconds(60),
    OPENAI_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  })
  .superRefine((c, ctx) => {
    if (c.OPENAI_MODEL && !c.OPENAI_API_KEY && !c.OPENAI_BASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['OPENAI_API_KEY'],
        message: 'is required with OPENAI_MODEL for OpenAI (or set OPENAI_BASE_URL to a server that needs no key)',
      });
    }
  });
export type ReportConfig = z.output<typeof ReportConfigSchema>;

export const loadReportConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(ReportConfigSchema, source);
