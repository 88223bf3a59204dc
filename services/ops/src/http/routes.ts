import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import Router from '@koa/router';
import { ERROR_CODES, type Operations, QUEUES_BOARD_PATH, routes } from '@nrad/contracts';
import { AppError, type AuditTrail, actorOf, adminOf, mountRoute, type ServiceState } from '@nrad/service-kit';
import type { Middleware } from 'koa';
import type { QueueWatch } from '../data/queues.ts';
import { type OperationsDeps, operations } from '../use-cases/operations.ts';

/** `GET /api/admin/operations`, ADMIN only; each read is recorded in the audit trail (`admin`). */
export function apiRoutes(deps: OperationsDeps & { audit: Pick<AuditTrail, 'record'> }) {
  const router = new Router<ServiceState>({ prefix: '/api' });
  mountRoute(router, routes.ops.operations, async (ctx) => {
    adminOf(ctx.state);
    const answer = await operations(deps);
    await deps.audit.record(actorOf(ctx), 'admin', [], { what: 'operations' });
    return answer satisfies Operations;
  });
  return router;
}

/**
 * What the queue board may change here, of all bull-board offers: retry, promote and clean (remove)
 * jobs, one or a queue's worth, and pause or resume queues. Everything else that is not a read is
 * refused (issue 37: a list of what is allowed, not of what is refused) — adding a job by hand (a
 * job carries whose upload or report it is: one typed in would act for that user), changing a
 * job's data or delay, emptying or obliterating a queue (uploads and reports would be lost without
 * a trace), its schedulers, rate limit and concurrency, the metrics history. bull-board's router
 * ignores letter case, so these do too: `/RETRY` is the retry it reaches, `/EMPTY` is refused.
 */
export const BOARD_ACTIONS: readonly RegExp[] = [
  /^\/api\/queues\/(pause|resume)$/i,
  /^\/api\/queues\/[^/]+\/(pause|resume|promote)$/i,
  /^\/api\/queues\/[^/]+\/(retry|clean)\/[^/]+$/i,
  /^\/api\/queues\/[^/]+\/[^/]+\/(retry|clean|promote)$/i,
];

/** Whether a request to the board (its path under QUEUES_BOARD_PATH) is a read or an allowed action. */
export function boardAllows(method: string, rest: string): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  return method === 'PUT' && BOARD_ACTIONS.some((r) => r.test(rest));
}

/**
 * bull-board at QUEUES_BOARD_PATH, for ADMIN only (the gateway sends the signed-in user's
 * identity; anyone else gets 403 before bull-board sees the request). Each action on a job or a
 * queue (any method but GET: retry, remove, promote, clean, pause) is recorded in the audit trail
 * (`admin`, with the method, the board's path and the status) before the answer leaves; the board's
 * pages and reads are not.
 */
export function queueBoard(queues: QueueWatch, audit: Pick<AuditTrail, 'record'>): Middleware<ServiceState> {
  const adapter = new KoaAdapter();
  adapter.setBasePath(QUEUES_BOARD_PATH);
  createBullBoard({
    queues: queues.queues.map((q) => new BullMQAdapter(q, { allowRetries: true })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: 'NRAD queues', hideDocsLink: true } },
  });
  const board = adapter.registerPlugin({ mount: QUEUES_BOARD_PATH }) as unknown as Middleware<ServiceState>;
  return async function adminQueueBoard(ctx, next) {
    if (ctx.path !== QUEUES_BOARD_PATH && !ctx.path.startsWith(`${QUEUES_BOARD_PATH}/`)) return next();
    adminOf(ctx.state);
    const rest = ctx.path.slice(QUEUES_BOARD_PATH.length);
    if (!boardAllows(ctx.method, rest)) {
      // Recorded as every 403 of a service is (access.refused, with the path).
      throw new AppError(ERROR_CODES.forbidden, 'This action is turned off on the NRAD queue board');
    }
    await board(ctx, next);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      await audit.record(actorOf(ctx), 'admin', [], {
        what: 'queue-board',
        method: ctx.method,
        path: rest.slice(0, 500),
        status: ctx.status,
      });
    }
  };
}
