import Router from '@koa/router';
import { ERROR_CODES, type ReportAccepted, routes } from '@nrad/contracts';
import { AppError, actorOf, GRANT_HEADER, mountRoute, type ServiceState, userOf } from '@nrad/service-kit';
import * as reports from '../use-cases/reports.ts';

/**
 * The report paths (ARCHITECTURE.md "Route ownership"): SPEC §7's and the reports' own. A report
 * asked for and each read of one are recorded in the audit trail (use-cases/reports.ts).
 */
export function apiRoutes(deps: reports.ReportDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.report.generate, async (ctx) => {
    const user = userOf(ctx.state);
    const grant = ctx.get(GRANT_HEADER) || undefined;
    const jobId = await reports.requestReport(deps, user, ctx.request.body, actorOf(ctx), grant);
    const wait = ctx.query.async === '1' ? 0 : deps.config.REPORT_WAIT_SECONDS * 1000;
    let result: Awaited<ReturnType<typeof reports.resultWithin>>;
    try {
      result = wait > 0 ? await reports.resultWithin(deps, user, jobId, wait) : undefined;
    } catch (err) {
      if (err instanceof reports.ReportFailedError) {
        throw new AppError(ERROR_CODES.upstream, `Failed to generate report: ${err.message}`);
      }
      throw err;
    }
    if (result) {
      ctx.body = result;
      return;
    }
    ctx.status = 202;
    ctx.set('Location', `/api/reports/jobs/${jobId}`);
    return { jobId } satisfies ReportAccepted;
  });

  mountRoute(router, routes.report.job, async (ctx) => {
    return await reports.jobOf(deps, userOf(ctx.state), ctx.params.jobId, actorOf(ctx));
  });

  mountRoute(router, routes.report.list, async (ctx) => {
    return await reports.listReports(deps, userOf(ctx.state), ctx.query);
  });

  mountRoute(router, routes.report.get, async (ctx) => {
    return await reports.getReport(deps, userOf(ctx.state), ctx.params.id, actorOf(ctx), 'read');
  });

  mountRoute(router, routes.report.markdown, async (ctx) => {
    const report = await reports.getReport(deps, userOf(ctx.state), ctx.params.id, actorOf(ctx), 'markdown');
    ctx.set('Content-Type', 'text/markdown; charset=utf-8');
    ctx.set('Content-Disposition', `attachment; filename="${reports.markdownFileName(report)}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report.report;
  });

  return router;
}
