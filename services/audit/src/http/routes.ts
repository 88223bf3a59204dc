import Router from '@koa/router';
import { routes } from '@nrad/contracts';
import { mountRoute, type ServiceState, userOf } from '@nrad/service-kit';
import { readTrail, type TrailDeps } from '../use-cases/trail.ts';

/** `GET /api/audit` (ADR 0014): the audit trail, for ADMIN and for an agency's own records. */
export function apiRoutes(deps: TrailDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.audit.trail, async (ctx) => {
    return await readTrail(deps, userOf(ctx.state), ctx.query);
  });

  return router;
}
