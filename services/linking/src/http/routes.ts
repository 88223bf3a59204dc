import Router from '@koa/router';
import { actorOf, type ServiceState, userOf } from '@nrad/service-kit';
import * as linking from '../use-cases/linking.ts';

/** The linking paths of SPEC §7 (ARCHITECTURE.md "Route ownership") and the links' summary. */
export function apiRoutes(deps: linking.LinkingDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  router.post('/records/check-namlc-matches', async (ctx) => {
    userOf(ctx.state);
    ctx.body = await linking.checkMatches(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body);
  });

  router.post('/records/link', async (ctx) => {
    const link = await linking.createLink(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body);
    ctx.status = 201;
    ctx.body = link;
  });

  router.get('/records/:id/links', async (ctx) => {
    ctx.body = await linking.listLinks(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id ?? '');
  });

  router.delete('/records/:id/links/:linkedId', async (ctx) => {
    const { id = '', linkedId = '' } = ctx.params;
    await linking.rejectLink(deps, userOf(ctx.state), actorOf(ctx), id, linkedId, ctx.request.body);
    ctx.status = 204;
  });

  router.post('/records/:id/links/:linkedId/restore', async (ctx) => {
    const { id = '', linkedId = '' } = ctx.params;
    ctx.body = await linking.restoreLink(deps, userOf(ctx.state), actorOf(ctx), id, linkedId);
  });

  router.get('/records/:id/linked', async (ctx) => {
    ctx.body = await linking.listLinked(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id ?? '');
  });

  // Counts only, no record: not an audited read (issue 21 audits what discloses records).
  router.get('/links/summary', (ctx) => {
    ctx.body = linking.linkSummary(deps, userOf(ctx.state));
  });

  return router;
}
