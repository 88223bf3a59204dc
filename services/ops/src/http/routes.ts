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
 * What the queue board may not do here, though bull-board offers it: add a job by hand (a job
 * carries whose upload or report it is: one typed in would act for that user), change a job's
 * data, empty or obliterate a queue (uploads and reports would be lost without a trace).
 * Retrying, removing, promoting and cleaning jobs and pausing a queue stay.
 */
const REFUSED = [
  /^\/api\/queues\/[^/]+\/add$/,
  /^\/api\/queues\/[^/]+\/empty$/,
  /^\/api\/queues\/[^/]+\/obliterate$/,
  /^\/api\/queues\/[^/]+\/[^/]+\/update-data$/,
];

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
    if (ctx.method !== 'GET' && REFUSED.some((r) => r.test(rest))) {
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
