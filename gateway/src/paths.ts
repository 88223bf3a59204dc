/**
 * The request path, checked once before anything routes it (issue 37). The gateway matches a
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

/** Audit entries of refused paths per client address per hour; beyond it they are only logged. */
export const REFUSED_PATHS_AUDITED_PER_HOUR = 100;

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

/**
 * Refuses (400) a request whose target pathProblem refuses, before any router, the session or the
 * app's files see it; the refusal is audited (`access.refused`, reason `path`, with the method
 * and the target), at most REFUSED_PATHS_AUDITED_PER_HOUR times an hour per address.
 */
export function checkedPaths(deps: {
  redis: Redis;
  prefix: string;
  audit: Pick<AuditTrail, 'record'>;
  logger: { warn: (obj: object, msg: string) => void };
}): Koa.Middleware {
  return async function checkedPaths(ctx, next) {
    const target = ctx.req.url ?? '';
    const problem = pathProblem(target);
    if (!problem) return next();
    const detail = { reason: 'path', problem, method: ctx.method.slice(0, 20), path: target.slice(0, 500) };
    const over = await hitAddressLimit(
      deps.redis,
      `${deps.prefix}limit:refused-paths:`,
      ctx.ip,
      REFUSED_PATHS_AUDITED_PER_HOUR,
      3600,
    );
    if (over > 0) deps.logger.warn(detail, 'refused path (not audited: over the hourly number)');
    else await deps.audit.record(actorOf(ctx), 'access.refused', [], detail);
    throw new AppError(ERROR_CODES.validation, INVALID_PATH);
  };
}
