import Router from '@koa/router';
import { adminOf, type ServiceState, userOf } from '@nrad/service-kit';
import * as stats from '../use-cases/stats.ts';

/** The statistics paths of SPEC §7 (ARCHITECTURE.md "Route ownership"). */
export function apiRoutes(deps: stats.StatsDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  router.get('/stats', (ctx) => {
    ctx.body = stats.dashboardStats(deps, userOf(ctx.state));
  });

  router.get('/stats/countries', (ctx) => {
    ctx.body = stats.countryStats(deps, userOf(ctx.state));
  });

  router.get('/stats/breakdown', (ctx) => {
    ctx.body = stats.breakdown(deps, userOf(ctx.state));
  });

  router.get('/admin/stats', (ctx) => {
    adminOf(ctx.state);
    ctx.body = stats.adminStats(deps);
  });

  return router;
}
