/**
 * What the gateway refuses before anything routes a request (issue 37): a path another parser
 * could read differently, a method NRAD does not answer, a compressed body.
 *
 * The request path is checked once. The gateway matches a
 * path against its route table and forwards that same path; nothing after this check may resolve
 * it again. A path that another parser could read differently is refused outright:
 *
 * - a request target that is not a path (`GET http://host/…`, `*`): a URL resolver would take
 *   its host;
 * - a backslash, an empty segment (`//`), a control character or NUL, raw or percent-encoded;
 * - a segment that is, or decodes to, `.` or `..` (`%2e%2E`), or that decodes to a slash or a
 *   backslash (`%2f`, `%5C`);
 * - a percent sign that does not start an escape.
 */
import { ERROR_CODES } from '@nrad/contracts';
import { AppError, type AuditTrail } from '@nrad/service-kit';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import { hitAddressLimit } from './auth/login-guard.ts';
import { actorOf } from './auth/routes.ts';

export const INVALID_PATH = 'The request path is not valid.';

/** Audit entries of refused requests per client address per hour; beyond it they are only logged. */
export const REFUSALS_AUDITED_PER_HOUR = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a request target is refused, or undefined when the gateway may route it as written. */
export function pathProblem(target: string): string | undefined {
  if (!target.startsWith('/')) return 'not a path';
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  if (path.includes('\\')) return 'a backslash';
  if (CONTROL.test(path)) return 'a control character';
  const segments = path.slice(1).split('/');
  for (const [i, segment] of segments.entries()) {
    // One trailing slash is a path's own; an empty segment elsewhere is `//`.
    if (segment === '' && i < segments.length - 1) return 'an empty segment';
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'a malformed escape';
    }
    if (decoded === '.' || decoded === '..') return 'a dot segment';
    if (decoded.includes('/') || decoded.includes('\\')) return 'an encoded slash';
    if (CONTROL.test(decoded)) return 'a control character';
  }
  return undefined;
}

/** The methods NRAD answers; any other is 501 before it is routed or forwarded. */
export const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The one content coding a request body may have. Browsers never compress what they send, and a
 * compressed body would be inflated by each service's parser (a small bomb, or a broken stream
 * answered 500): anything else is 415.
 */
const IDENTITY = new Set(['', 'identity']);

interface Refusal {
  reason: 'path' | 'method' | 'content-encoding';
  problem: string;
  error: AppError;
}

/** Why the gateway refuses a request before routing it, or undefined. */
export function requestRefusal(req: { method: string; url: string; contentEncoding: string }): Refusal | undefined {
  const problem = pathProblem(req.url);
  if (problem) return { reason: 'path', problem, error: new AppError(ERROR_CODES.validation, INVALID_PATH) };
  if (!METHODS.has(req.method)) {
    const message = `The method ${req.method.slice(0, 20)} is not supported.`;
    return { reason: 'method', problem: 'unknown method', error: new AppError(ERROR_CODES.notImplemented, message) };
  }
  const coding = req.contentEncoding.trim().toLowerCase();
  if (!IDENTITY.has(coding)) {
    const message = 'Compressed request bodies are not supported: send the body without Content-Encoding.';
    return {
      reason: 'content-encoding',
      problem: coding.slice(0, 40),
      error: new AppError(ERROR_CODES.unsupportedMediaType, message),
    };
  }
  return undefined;
}

/**
 * Refuses a request requestRefusal refuses (a path 400, a method 501, a content coding 415) before
 * any router, the session or the app's files see it. Each refusal is audited (`access.refused`,
 * with the reason, the problem, the method and the target), at most REFUSALS_AUDITED_PER_HOUR
 * times an hour per address; beyond that it is only logged.
 */
export function checkedRequests(deps: {
  redis: Redis;
  prefix: string;
  audit: Pick<AuditTrail, 'record'>;
  logger: { warn: (obj: object, msg: string) => void };
}): Koa.Middleware {
  return async function checkedRequests(ctx, next) {
    const refusal = requestRefusal({
      method: ctx.method,
      url: ctx.req.url ?? '',
      contentEncoding: ctx.get('content-encoding'),
    });
    if (!refusal) return next();
    const detail = {
      reason: refusal.reason,
      problem: refusal.problem,
      method: ctx.method.slice(0, 20),
      path: (ctx.req.url ?? '').slice(0, 500),
    };
    const over = await hitAddressLimit(
      deps.redis,
      `${deps.prefix}limit:refused-requests:`,
      ctx.ip,
      REFUSALS_AUDITED_PER_HOUR,
      3600,
    );
    if (over > 0) deps.logger.warn(detail, 'refused request (not audited: over the hourly number)');
    else await deps.audit.record(actorOf(ctx), 'access.refused', [], detail);
    throw refusal.error;
  };
}
