import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import Router from '@koa/router';
import { ERROR_CODES, type Operations, QUEUES_BOARD_PATH } from '@nrad/contracts';
import { AppError, adminOf, type ServiceState } from '@nrad/service-kit';
import type { Middleware } from 'koa';
import type { QueueWatch } from '../data/queues.ts';
import { type OperationsDeps, operations } from '../use-cases/operations.ts';

/** `GET /api/admin/operations`, ADMIN only. */
export function apiRoutes(deps: OperationsDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });
  router.get('/admin/operations', async (ctx) => {
    adminOf(ctx.state);
    ctx.body = (await operations(deps)) satisfies Operations;
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
 * identity; anyone else gets 403 before bull-board sees the request).
 */
export function queueBoard(queues: QueueWatch): Middleware<ServiceState> {
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
    return board(ctx, next);
  };
}
