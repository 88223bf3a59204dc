import Router from '@koa/router';
import { ERROR_CODES, type ReportAccepted } from '@nrad/contracts';
import { AppError, actorOf, type ServiceState, userOf } from '@nrad/service-kit';
import * as reports from '../use-cases/reports.ts';

/**
 * The report paths (ARCHITECTURE.md "Route ownership"): SPEC §7's and the reports' own. A report
 * asked for and each read of one are recorded in the audit trail (use-cases/reports.ts).
 */
export function apiRoutes(deps: reports.ReportDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  router.post('/generate-report', async (ctx) => {
    const user = userOf(ctx.state);
    const jobId = await reports.requestReport(deps, user, ctx.request.body, actorOf(ctx));
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
    ctx.body = { jobId } satisfies ReportAccepted;
  });

  router.get('/reports/jobs/:jobId', async (ctx) => {
    ctx.body = await reports.jobOf(deps, userOf(ctx.state), ctx.params.jobId ?? '', actorOf(ctx));
  });

  router.get('/reports', async (ctx) => {
    ctx.body = await reports.listReports(deps, userOf(ctx.state), ctx.query);
  });

  router.get('/reports/:id', async (ctx) => {
    ctx.body = await reports.getReport(deps, userOf(ctx.state), ctx.params.id ?? '', actorOf(ctx), 'read');
  });

  router.get('/reports/:id/markdown', async (ctx) => {
    const report = await reports.getReport(deps, userOf(ctx.state), ctx.params.id ?? '', actorOf(ctx), 'markdown');
    ctx.set('Content-Type', 'text/markdown; charset=utf-8');
    ctx.set('Content-Disposition', `attachment; filename="${reports.markdownFileName(report)}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report.report;
  });

  return router;
}
