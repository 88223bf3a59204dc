import { type Bus, busReadiness, createServiceApp, type Logger } from '@nrad/service-kit';
import { pingRedis } from '@nrad/service-kit/queues';
import type { OpsConfig } from './config.ts';
import { QueueWatch } from './data/queues.ts';
import { apiRoutes, queueBoard } from './http/routes.ts';

export interface OpsAppDeps {
  config: OpsConfig;
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the ops service: the queues it watches, `GET /api/admin/operations` and the queue board.
 * It stores nothing. `stop()` closes the queues' connection; the caller closes the bus.
 */
export function createApp({ config, bus, logger }: OpsAppDeps) {
  const queues = new QueueWatch({
    redisUrl: config.REDIS_URL,
    names: config.OPS_QUEUES,
    prefix: config.OPS_QUEUE_PREFIX,
  });
  const app = createServiceApp({
    name: 'ops',
    logger,
    identitySecret: config.IDENTITY_SECRET,
    readiness: {
      nats: busReadiness(bus),
      redis: () => pingRedis(queues.connection),
    },
  });
  app.use(queueBoard(queues));
  const api = apiRoutes({
    bus,
    queues,
    services: config.OPS_SERVICES,
    streamPrefix: config.OPS_STREAM_PREFIX,
    logger,
  });
  app.use(api.routes()).use(api.allowedMethods());
  return {
    app,
    queues,
    stop: () => queues.close(),
  };
}
