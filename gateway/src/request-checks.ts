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

interface RefusalDeps {
  redis: Redis;
  prefix: string;
  audit: Pick<AuditTrail, 'record'>;
  logger: { warn: (obj: object, msg: string) => void };
}

/**
 * Records a refusal of the gateway's own (`access.refused`, with what was tried), at most
 * REFUSALS_AUDITED_PER_HOUR times an hour per address (anyone can send refused requests: beyond
 * that number they are only logged). `user`: the signed-in user, when the session was read.
 */
async function auditRefusal(
  deps: RefusalDeps,
  ctx: Koa.Context,
  detail: Record<string, string | number>,
  user?: Parameters<typeof actorOf>[1],
): Promise<void> {
  const over = await hitAddressLimit(
    deps.redis,
    `${deps.prefix}limit:refused-requests:`,
    ctx.ip,
    REFUSALS_AUDITED_PER_HOUR,
    3600,
  );
  if (over > 0) deps.logger.warn(detail, 'refused request (not audited: over the hourly number)');
  else await deps.audit.record(actorOf(ctx, user), 'access.refused', [], detail);
}

/**
 * Refuses a request requestRefusal refuses (a path 400, a method 501, a content coding 415) before
 * any router, the session or the app's files see it, audited (auditRefusal: the reason, the
 * problem, the method and the target).
 */
export function checkedRequests(deps: RefusalDeps): Koa.Middleware {
  return async function checkedRequests(ctx, next) {
    const refusal = requestRefusal({
      method: ctx.method,
      url: ctx.req.url ?? '',
      contentEncoding: ctx.get('content-encoding'),
    });
    if (!refusal) return next();
    await auditRefusal(deps, ctx, {
      reason: refusal.reason,
      problem: refusal.problem,
      method: ctx.method.slice(0, 20),
      path: (ctx.req.url ?? '').slice(0, 500),
    });
    throw refusal.error;
  };
}

/**
 * Audits the gateway's own 403s (issue 37) — a write from another site, the queue board asked for
 * by someone who is not ADMIN — as the services audit theirs: `access.refused` with the status,
 * the method, the path and why, the user when the session says who it is. A service's 403 that
 * the gateway forwards is the service's to record, and is not thrown here.
 */
export function auditedRefusals(
  deps: RefusalDeps,
  userOf: (ctx: Koa.Context) => Parameters<typeof actorOf>[1] | undefined,
): Koa.Middleware {
  return async function auditedRefusals(ctx, next) {
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.code === ERROR_CODES.forbidden) {
        const detail = {
          status: 403,
          method: ctx.method.slice(0, 20),
          path: ctx.path.slice(0, 500),
          reason: err.message.slice(0, 200),
        };
        await auditRefusal(deps, ctx, detail, userOf(ctx)).catch(() => undefined);
      }
      throw err;
    }
  };
}
