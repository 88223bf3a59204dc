import { AsyncLocalStorage } from 'node:async_hooks';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Carries the request id through everything a request causes, so every log line names it; and the
 * gateway's identity token of the request once verified (never logged: a service asking another on
 * the same user's behalf carries it as its proof, identity.ts).
 */
export const requestContext = new AsyncLocalStorage<{ requestId: string; identityToken?: string }>();

/** The gateway's identity token of the request being handled, if any. */
export function currentIdentityToken(): string | undefined {
  return requestContext.getStore()?.identityToken;
}

/** Header and body fields that must never reach a log. */
const REDACT = [
  'password',
  '*.password',
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-nrad-identity"]',
  'req.headers["x-nrad-grant"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  'headers["x-nrad-identity"]',
];

/** A pino logger whose lines carry `reqId` whenever they are written inside a request. */
export function createLogger(
  options: { name: string; level?: LoggerOptions['level'] },
  destination?: DestinationStream,
): Logger {
  const opts: LoggerOptions = {
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    mixin() {
      const store = requestContext.getStore();
      return store ? { reqId: store.requestId } : {};
    },
  };
  return destination ? pino(opts, destination) : pino(opts);
}
