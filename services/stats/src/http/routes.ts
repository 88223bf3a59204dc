import Router from '@koa/router';
import { routes } from '@nrad/contracts';
import { actorOf, adminOf, mountRoute, type ServiceState, scopeOf, userOf } from '@nrad/service-kit';
import * as stats from '../use-cases/stats.ts';

/**
 * The statistics paths of SPEC §7 (ARCHITECTURE.md "Route ownership"). ADMIN's counts of every
 * agency are recorded in the audit trail (`admin`); an agency's own figures name no record and are
 * not.
 */
export function apiRoutes(deps: stats.StatsDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.stats.dashboard, (ctx) => {
    return stats.dashboardStats(deps, userOf(ctx.state));
  });

  mountRoute(router, routes.stats.countries, (ctx) => {
    return stats.countryStats(deps, userOf(ctx.state));
  });

  mountRoute(router, routes.stats.breakdown, (ctx) => {
    return stats.breakdown(deps, userOf(ctx.state));
  });

  mountRoute(router, routes.stats.admin, async (ctx) => {
    const counts = stats.adminStats(deps, scopeOf(adminOf(ctx.state)));
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'admin-stats' });
    return counts;
  });

  return router;
}
