import Router from '@koa/router';
import { LINKING_PENDING, LINKING_STATE_HEADER, routes } from '@nrad/contracts';
import { actorOf, mountRoute, type ServiceState, userOf } from '@nrad/service-kit';
import * as linking from '../use-cases/linking.ts';
import * as review from '../use-cases/possible-matches.ts';

/** The linking paths of SPEC §7 (ARCHITECTURE.md "Route ownership") and the links' summary. */
export function apiRoutes(deps: linking.LinkingDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.linking.checkMatches, async (ctx) => {
    userOf(ctx.state);
    return await linking.checkMatches(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body);
  });

  mountRoute(router, routes.linking.link, async (ctx) => {
    const link = await linking.createLink(deps, userOf(ctx.state), actorOf(ctx), ctx.request.body);
    ctx.status = 201;
    return link;
  });

  mountRoute(router, routes.linking.links, async (ctx) => {
    const { views, pending } = await linking.listLinks(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id);
    if (pending) ctx.set(LINKING_STATE_HEADER, LINKING_PENDING);
    return views;
  });

  mountRoute(router, routes.linking.reject, async (ctx) => {
    const { id, linkedId } = ctx.params;
    await linking.rejectLink(deps, userOf(ctx.state), actorOf(ctx), id, linkedId, ctx.request.body);
    ctx.status = 204;
  });

  mountRoute(router, routes.linking.restore, async (ctx) => {
    const { id, linkedId } = ctx.params;
    return await linking.restoreLink(deps, userOf(ctx.state), actorOf(ctx), id, linkedId);
  });

  mountRoute(router, routes.linking.linked, async (ctx) => {
    const { summaries, pending } = await linking.listLinked(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id);
    if (pending) ctx.set(LINKING_STATE_HEADER, LINKING_PENDING);
    return summaries;
  });

  mountRoute(router, routes.linking.possibleMatches, async (ctx) => {
    return await review.listPossibleMatches(deps, userOf(ctx.state), actorOf(ctx), ctx.query);
  });

  // Counts only, no record: not an audited read.
  mountRoute(router, routes.linking.possibleMatchCount, (ctx) => {
    return review.countPossibleMatches(deps, userOf(ctx.state));
  });

  // Counts only (ADMIN), no record: not an audited read.
  mountRoute(router, routes.linking.possibleMatchLabels, (ctx) => {
    return review.labelFigures(deps, userOf(ctx.state));
  });

  mountRoute(router, routes.linking.confirmPossibleMatch, async (ctx) => {
    const link = await review.confirmPossibleMatch(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id);
    ctx.status = 201;
    return link;
  });

  mountRoute(router, routes.linking.rejectPossibleMatch, async (ctx) => {
    await review.rejectPossibleMatch(deps, userOf(ctx.state), actorOf(ctx), ctx.params.id, ctx.request.body);
    ctx.status = 204;
  });

  // Counts only, no record: not an audited read (issue 21 audits what discloses records).
  mountRoute(router, routes.linking.summary, (ctx) => {
    return linking.linkSummary(deps, userOf(ctx.state));
  });

  return router;
}
