import { AuditTrail, type Bus, busReadiness, createServiceApp, type Logger, RedisAuditSpool } from '@nrad/service-kit';
import { pingRedis } from '@nrad/service-kit/queues';
import type { OpsConfig } from './config.ts';

import { AlertWatch } from './data/alerts.ts';
import { QueueWatch } from './data/queues.ts';
import { apiRoutes, queueBoard } from './http/routes.ts';

export interface OpsAppDeps {
  config: OpsConfig;
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the ops service: the queues it watches, the audit trail (started; its spool in Redis),
 * `GET /api/admin/operations` (with the gateway's security alerts, read on the queues' Redis
 * connection) and the queue board. It stores nothing else. `stop()` stops the
 * trail and closes the queues' connection; the caller closes the bus.
 */
export async function createApp({ config, bus, logger }: OpsAppDeps) {
  const queues = new QueueWatch({
    redisUrl: config.REDIS_URL,
    names: config.OPS_QUEUES,
    prefix: config.OPS_QUEUE_PREFIX,
  });
  const spool = new RedisAuditSpool(queues.connection, config.REDIS_PREFIX);
  const audit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX },
    service: 'ops',
    logger,
    spool,
  });
  try {
    await audit.start();
  } catch (err) {
    await queues.close();
    throw err;
  }
  const app = createServiceApp({
    name: 'ops',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    readiness: {
      nats: busReadiness(bus),
      redis: () => pingRedis(queues.connection),
    },
    audit,
  });
  app.use(queueBoard(queues, audit));
  const api = apiRoutes({
    bus,
    queues,
    alerts: new AlertWatch(queues.connection, config.OPS_GATEWAY_REDIS_PREFIX, logger),
    services: config.OPS_SERVICES,
    streamPrefix: config.OPS_STREAM_PREFIX,
    logger,
    audit,
  });
  app.use(api.routes()).use(api.allowedMethods());
  return {
    app,
    queues,
    audit,
    spool,
    async stop() {
      await audit.stop();
      await queues.close();
    },
  };
}
