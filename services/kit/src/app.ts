import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { ERROR_CODES, type Identity, REQUEST_ID_HEADER } from '@nrad/contracts';
import Koa, { type Middleware } from 'koa';
import { type AuditTrail, actorOf } from './audit.ts';
import { AppError, errorMiddleware, validationError } from './errors.ts';
import { type IdentityKeys, requireIdentity } from './identity.ts';
import { type Logger, requestContext } from './logger.ts';
import { createMetrics } from './metrics.ts';

/** State every service request carries. */
export interface ServiceState {
  identity?: Identity;
  /** Who signed the identity token: the gateway, or the calling service's name. */
  caller?: string;
  /** The gateway's own token of the request (a user's proof when this service asks another). */
  identityToken?: string;
  requestId: string;
}

/** A readiness check throws (or rejects) when its dependency is not usable. */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  /** The identity tokens' public keys (IDENTITY_PUBLIC_KEYS); every non-health request carries a token. */
  identityKeys: IdentityKeys;
  readiness?: ReadinessChecks;
  /** Largest JSON body accepted (default 100kb). */
  jsonLimit?: string;
  /** Paths whose bodies are not JSON (e.g. multipart uploads); the service parses them itself. */
  rawBodyPaths?: RegExp[];
  /** Paths with a larger JSON limit than `jsonLimit` (e.g. an internal bulk path). */
  largeBodyPaths?: Array<{ path: RegExp; limit: string }>;
  /** Where a signed-in user's refused requests (403) are recorded (`access.refused`, issue 21). */
  audit?: Pick<AuditTrail, 'record'>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Takes the request id the gateway sent (or makes one) and runs the request inside its context. */
export function requestIdMiddleware(): Middleware<{ requestId: string }> {
  return async function requestId(ctx, next) {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const id = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set(REQUEST_ID_HEADER, id);
    await requestContext.run({ requestId: id }, next);
  };
}

/**
 * Records each request of a signed-in user that was refused with 403 (an agency user on an ADMIN
 * path, say) as `access.refused` with the method, path and status. The refusals of another agency's
 * record, answered 404 as a missing one would be, are recorded by the service that knows (it names
 * the record). The answer waits for the record; if it cannot be written, the 403 stands.
 */
export function refusalAudit(audit: Pick<AuditTrail, 'record'>, logger: Logger): Middleware<ServiceState> {
  return async function refusalAudit(ctx, next) {
    await next();
    if (ctx.status !== 403 || ctx.state.identity?.kind !== 'user') return;
    try {
      await audit.record(actorOf(ctx), 'access.refused', [], {
        status: 403,
        method: ctx.method,
        path: ctx.path.slice(0, 500),
      });
    } catch (err) {
      logger.error({ err }, 'a refusal could not be recorded');
    }
  };
}

/** One line per request: method, path (never the query string or body), status, duration, user. */
export function accessLog(logger: Logger): Middleware<{ identity?: Identity }> {
  return async function accessLog(ctx, next) {
    const start = performance.now();
    try {
      await next();
    } finally {
      const identity = ctx.state.identity;
      logger.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round((performance.now() - start) * 10) / 10,
          user: identity?.kind === 'user' ? identity.userId : identity?.kind,
        },
        'request',
      );
    }
  };
}

declare const __NRAD_VERSION__: string | undefined;

/**
 * The build a process runs: the bundler writes it (`0.1.0+<commit>`, infra/bin/bundle.mjs);
 * "source" when run from TypeScript (tests).
 */
export const SERVICE_VERSION: string = typeof __NRAD_VERSION__ === 'string' ? __NRAD_VERSION__ : 'source';

/**
 * `/healthz` (alive), `/readyz` (every dependency usable, and the build: the operations console
 * reads both), `/metrics` (Prometheus; with `metricsOnHealth` false it is served elsewhere).
 */
export function healthRoutes(
  readiness: ReadinessChecks,
  metrics: { registry: { metrics(): Promise<string>; contentType: string } },
  options: { metrics: boolean; version: boolean } = { metrics: true, version: true },
) {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const report = await checkReadiness(readiness);
    ctx.status = report.ready ? 200 : 503;
    ctx.body = options.version ? { ...report, version: SERVICE_VERSION } : report;
  });
  if (options.metrics) router.get('/metrics', metricsHandler(metrics));
  return router;
}

/** Prometheus' text of a registry. */
export function metricsHandler(metrics: { registry: { metrics(): Promise<string>; contentType: string } }) {
  return async (ctx: Koa.Context) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}

/** `work`, or a rejection once `ms` have passed without its answer. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Runs every check with a time limit; a check that throws or hangs marks its dependency down. */
export async function checkReadiness(checks: ReadinessChecks, timeoutMs = 2000) {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(Promise.resolve().then(check), timeoutMs);
        return [name, 'up'] as const;
      } catch {
        return [name, 'down'] as const;
      }
    }),
  );
  const checksOut = Object.fromEntries(entries) as Record<string, 'up' | 'down'>;
  return { ready: entries.every(([, s]) => s === 'up'), checks: checksOut };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Keys that reach an object's prototype when code copies or merges a parsed body. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The first key of a JSON body that no NRAD payload has and that is an attack when one is let
 * through — a prototype key (pollution through a merge) or a `$`-key (a MongoDB operator or path
 * smuggled into a filter or an update) — with the path to the value holding it; undefined when
 * there is none. Walks every level.
 */
export function forbiddenKey(
  value: unknown,
  path: readonly string[] = [],
): { key: string; path: string[] } | undefined {
  if (typeof value !== 'object' || value === null || path.length > 64) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    if (!Array.isArray(value) && (PROTOTYPE_KEYS.has(key) || key.startsWith('$'))) return { key, path: [...path] };
    const found = forbiddenKey(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * JSON bodies up to `limit` (as `ctx.request.body`); a body of another type, or with a
 * Content-Encoding other than identity, is refused with 415,
 * except on `rawBodyPaths` (e.g. multipart uploads), which are left unread for their handler. A
 * body holding a prototype key or a `$`-key at any level is refused with 400 (forbiddenKey), before
 * any handler sees it.
 */
export function jsonBody(options: {
  limit: string;
  rawBodyPaths?: RegExp[];
  largeBodyPaths?: Array<{ path: RegExp; limit: string }>;
}): Middleware {
  const rawBodyPaths = options.rawBodyPaths ?? [];
  // DELETE too: rejecting a link sends its reason (issue 34).
  const parser = (limit: string) =>
    bodyParser({ enableTypes: ['json'], jsonLimit: limit, jsonStrict: true, parsedMethods: [...BODY_METHODS] });
  const normal = parser(options.limit);
  const large = (options.largeBodyPaths ?? []).map((p) => ({ path: p.path, parse: parser(p.limit) }));
  return async function jsonBody(ctx, next) {
    // A compressed body would be inflated by the parser: a small bomb, or a broken stream.
    const coding = ctx.get('content-encoding').trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') {
      throw new AppError(
        ERROR_CODES.unsupportedMediaType,
        'Compressed request bodies are not supported: send the body without Content-Encoding.',
      );
    }
    if (rawBodyPaths.some((p) => p.test(ctx.path))) return next();
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (BODY_METHODS.has(ctx.method) && hasBody && !ctx.is('json')) {
      throw new AppError(
        ERROR_CODES.unsupportedMediaType,
        'Request body must be JSON (Content-Type: application/json)',
      );
    }
    const parseJson = large.find((p) => p.path.test(ctx.path))?.parse ?? normal;
    return parseJson(ctx, async () => {
      const found = forbiddenKey(ctx.request.body);
      if (found) {
        const where = found.path.join('.').slice(0, 100) || 'body';
        throw validationError(`${where}: must not hold the key "${found.key.slice(0, 40)}"`);
      }
      await next();
    });
  };
}

/**
 * The Koa app every service starts from: request ids, access log, metrics, the error middleware,
 * health routes, JSON body parsing with a size limit, and identity verification in front of
 * everything the service then mounts.
 */
export function createServiceApp(options: ServiceAppOptions): Koa<ServiceState> {
  const { logger } = options;
  const app = new Koa<ServiceState>();
  app.silent = true; // errors are logged by the error middleware, once, without internals leaking
  const metrics = createMetrics(options.name);
  const health = healthRoutes(options.readiness ?? {}, metrics);

  app.use(requestIdMiddleware());
  app.use(accessLog(logger));
  app.use(metrics.middleware);
  if (options.audit) app.use(refusalAudit(options.audit, logger));
  app.use(errorMiddleware(logger));
  app.use(health.routes());
  // Identity first: a body from a caller who is not vouched for is never parsed.
  app.use(requireIdentity(options.identityKeys));
  app.use(
    jsonBody({
      limit: options.jsonLimit ?? '100kb',
      rawBodyPaths: options.rawBodyPaths ?? [],
      largeBodyPaths: options.largeBodyPaths ?? [],
    }),
  );
  return app;
}
