import Router from '@koa/router';
import { ADMIN_ACCESS_DENIED, ERROR_CODES, type Identity, QUEUES_BOARD_PATH, routes } from '@nrad/contracts';
import { openApiDocument } from '@nrad/contracts/openapi';
import {
  AppError,
  type AuditTrail,
  accessLog,
  checkReadiness,
  createMetrics,
  errorMiddleware,
  GATEWAY_ISSUER,
  healthRoutes,
  IdentityTokens,
  type Logger,
  metricsHandler,
  mountRoute,
  parseSigner,
  requestIdMiddleware,
  requireAllAgencies,
  signGrant,
  unauthenticated,
} from '@nrad/service-kit';
import type { Redis } from 'ioredis';
import Koa from 'koa';
import { createAuthClient } from './auth/auth-client.ts';
import { hitAddressLimit, LoginGuard } from './auth/login-guard.ts';
import { actorOf, refreshSessionUser, sessionRoutes, signInLockRoutes } from './auth/routes.ts';
import type { GatewayConfig } from './config.ts';
import { frontendRoutes } from './frontends.ts';
import { createProxy } from './proxy/proxy.ts';
import { auditedRefusals, checkedRequests } from './request-checks.ts';
import { grantsOf, routeFor, type ServiceName, userLimitOf } from './routes.ts';
import { sameOriginWrites, securityHeaders } from './security.ts';
import { sessionMiddleware, sessionUser } from './session/session.ts';
import { UserLimits } from './user-limits.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  redis: Redis;
  logger: Logger;
  /**
   * Where sign-ins, failed sign-ins, lockouts, sign-outs, requests over a per-user limit and security
   * alerts are recorded (started by the caller).
   */
  audit: Pick<AuditTrail, 'record'>;
}

interface GatewayState {
  requestId: string;
  identity?: Identity;
}

/**
 * The only public entry: security headers, sessions in Redis, sign-in with lockout, and every other
 * /api path forwarded to the service that owns it with a signed identity token.
 */
export function createGateway({ config, redis, logger, audit }: GatewayDeps) {
  const app = new Koa<GatewayState>();
  app.keys = config.SESSION_SECRET.split(',').map((k) => k.trim());
  app.proxy = config.TRUST_PROXY;
  app.silent = true;

  const prefix = config.REDIS_PREFIX;
  const services: Record<ServiceName, string> = {
    auth: config.AUTH_URL,
    records: config.RECORDS_URL,
    linking: config.LINKING_URL,
    stats: config.STATS_URL,
    ingest: config.INGEST_URL,
    report: config.REPORT_URL,
    ops: config.OPS_URL,
    audit: config.AUDIT_URL,
  };
  const addressLimits = { registrations: config.REGISTER_IP_MAX_PER_HOUR };
  const signer = parseSigner(GATEWAY_ISSUER, config.IDENTITY_PRIVATE_KEY);
  const identityTokens = new IdentityTokens(signer);
  const auth = createAuthClient({ baseUrl: config.AUTH_URL, signer });
  const guard = new LoginGuard(redis, prefix, {
    maxFailures: config.LOGIN_MAX_FAILURES,
    failureWindowSeconds: config.LOGIN_FAILURE_WINDOW_MINUTES * 60,
    firstDelaySeconds: config.LOGIN_FIRST_DELAY_SECONDS,
    lockSeconds: config.LOGIN_LOCK_MINUTES * 60,
    ipMaxFailures: config.LOGIN_IP_MAX_FAILURES,
    ipWindowSeconds: config.LOGIN_IP_WINDOW_MINUTES * 60,
  });
  const userLimits = new UserLimits({ redis, prefix, config, audit, logger });
  const proxy = createProxy({ timeoutMs: config.UPSTREAM_TIMEOUT_MS, logger });
  const metrics = createMetrics('gateway');
  const readiness = {
    redis: async () => {
      if ((await redis.ping()) !== 'PONG') throw new Error('no PONG');
    },
    auth: () => auth.ready(),
  };

  app.use(requestIdMiddleware());
  app.use(accessLog(logger));
  app.use(metrics.middleware);
  app.use(errorMiddleware(logger));
  const remoteOrigins = [
    ...new Set(Object.values(config.MF_REMOTES).flatMap((url) => (url.startsWith('/') ? [] : [new URL(url).origin]))),
  ];
  app.use(securityHeaders(remoteOrigins));
  app.use(checkedRequests({ redis, prefix, audit, logger }));
  // The session is read only where a router loaded it (the queue board's); elsewhere: no user.
  app.use(auditedRefusals({ redis, prefix, audit, logger }, (ctx) => sessionUser(ctx)));
  // /metrics is not public: it answers on the internal metrics port (metricsApp, METRICS_PORT);
  // nor is the build the gateway runs.
  app.use(healthRoutes(readiness, metrics, { metrics: false, version: false }).routes());
  app.use(async function noPublicMetrics(ctx, next) {
    if (ctx.path === '/metrics') throw new AppError(ERROR_CODES.notFound, 'Not found');
    await next();
  });

  const api = new Router<GatewayState>({ prefix: '/api' });
  const noStore: Koa.Middleware = async function noStore(ctx, next) {
    // Case records and user details must not linger in browser or proxy caches.
    ctx.set('Cache-Control', 'no-store');
    await next();
  };
  const sessions = sessionMiddleware(app as unknown as Koa, {
    redis,
    prefix,
    idleMs: config.SESSION_IDLE_MINUTES * 60_000,
    absoluteMs: config.SESSION_ABSOLUTE_HOURS * 3_600_000,
  });
  api.use(noStore);
  api.use(sameOriginWrites());
  api.use(sessions);

  mountRoute(api, routes.gateway.health, async (ctx) => {
    const report = await checkReadiness(readiness);
    ctx.status = report.ready ? 200 : 503;
    return { status: report.ready ? ('ok' as const) : ('unavailable' as const), dependencies: report.checks };
  });

  // The API described (docs/adr/0019): public, as it discloses no data; /api routes only.
  const openApi = openApiDocument();
  mountRoute(api, routes.gateway.openapi, () => openApi);

  const own = sessionRoutes({ auth, guard, logger, audit });
  api.use(own.routes(), own.allowedMethods());
  const locks = signInLockRoutes({ guard, audit });
  api.use(locks.routes(), locks.allowedMethods());

  /**
   * Forwards a request to a service with the caller's identity (a visitor's is anonymous), and a
   * grant for the service's later work on the user's behalf where the route asks for one.
   */
  async function forwardAs(
    ctx: Koa.Context,
    user: ReturnType<typeof sessionUser>,
    service: ServiceName,
    granted = false,
  ) {
    const identity: Identity = user
      ? { kind: 'user', userId: user.id, name: user.name, organization: user.organization, role: user.role }
      : { kind: 'anonymous' };
    ctx.state.identity = identity;
    const token = await identityTokens.for(identity);
    const grant = granted && identity.kind === 'user' ? await signGrant(identity, service, signer) : undefined;
    const { refreshSession } = await proxy.forward(ctx, services[service], token, grant);
    if (refreshSession) await refreshSessionUser(ctx, { auth, logger });
  }

  // Everything else under /api: the owning service, with the caller's identity.
  api.all('/{*rest}', async (ctx) => {
    const rule = routeFor(ctx.path);
    if (!rule) throw new AppError(ERROR_CODES.notFound, 'Not found');
    const user = sessionUser(ctx as unknown as Koa.Context);
    if (!user && !rule.public) throw unauthenticated('Not signed in');
    if (rule.addressLimit) {
      const limit = addressLimits[rule.addressLimit];
      const wait = await hitAddressLimit(redis, `${prefix}limit:${rule.addressLimit}:`, ctx.ip, limit, 3600);
      if (wait > 0) {
        ctx.set('Retry-After', String(wait));
        throw new AppError(ERROR_CODES.rateLimited, 'Too many requests from your network. Please try again later.');
      }
    }
    const limit = user ? userLimitOf(rule, ctx.method) : undefined;
    if (user && limit) {
      const actor = actorOf(ctx as unknown as Koa.Context, user);
      const refusal = await userLimits.take(limit, user, actor, ctx.path);
      if (refusal) {
        ctx.set('Retry-After', String(refusal.retryAfter));
        throw new AppError(ERROR_CODES.rateLimited, refusal.message);
      }
      await forwardAs(ctx as unknown as Koa.Context, user, rule.service, grantsOf(rule, ctx.method));
      // The linking service answers 404 for a record the user may not see, like a missing one.
      if (limit === 'link-attempts' && ctx.status === 404) await userLimits.linkRefused(user, actor, ctx.path);
      return;
    }
    await forwardAs(ctx as unknown as Koa.Context, user, rule.service, grantsOf(rule, ctx.method));
  });

  // The queue board (bull-board, served by the ops service) is a page of its own: ADMIN only.
  const board = new Router<GatewayState>();
  board.use(noStore);
  board.use(sameOriginWrites());
  board.use(sessions);
  board.all(`${QUEUES_BOARD_PATH}{/*rest}`, async (ctx) => {
    const user = sessionUser(ctx as unknown as Koa.Context);
    if (!user) throw unauthenticated('Not signed in');
    requireAllAgencies(user, ADMIN_ACCESS_DENIED);
    await forwardAs(ctx as unknown as Koa.Context, user, 'ops');
  });
  app.use(board.routes());

  app.use(api.routes());

  app.use(frontendRoutes({ dir: config.FRONTENDS_DIR, remotes: config.MF_REMOTES }));

  // Prometheus scrapes this on an internal address (METRICS_HOST:METRICS_PORT), never the public one.
  const metricsApp = new Koa();
  metricsApp.silent = true;
  metricsApp.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/metrics') return metricsHandler(metrics)(ctx);
    await next();
  });

  return { app, metricsApp, routers: { api }, close: () => proxy.close() };
}
