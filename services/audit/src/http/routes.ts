import Router from '@koa/router';
import { type ServiceState, userOf } from '@nrad/service-kit';
import { readTrail, type TrailDeps } from '../use-cases/trail.ts';

/** `GET /api/audit` (ADR 0014): the audit trail, for ADMIN and for an agency's own records. */
export function apiRoutes(deps: TrailDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  router.get('/audit', async (ctx) => {
    ctx.body = await readTrail(deps, userOf(ctx.state), ctx.query);
  });

  return router;
}
