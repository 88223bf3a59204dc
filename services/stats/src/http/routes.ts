import Router from '@koa/router';
import { actorOf, adminOf, type ServiceState, scopeOf, userOf } from '@nrad/service-kit';
import * as stats from '../use-cases/stats.ts';

/**
 * The statistics paths of SPEC §7 (ARCHITECTURE.md "Route ownership"). ADMIN's counts of every
 * agency are recorded in the audit trail (`admin`); an agency's own figures name no record and are
 * not.
 */
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

  router.get('/admin/stats', async (ctx) => {
    const counts = stats.adminStats(deps, scopeOf(adminOf(ctx.state)));
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'admin-stats' });
    ctx.body = counts;
  });

  return router;
}
