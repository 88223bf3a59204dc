import {
  AuditTrail,
  closeServer,
  connectBus,
  createLogger,
  listen,
  onShutdown,
  RedisAuditSpool,
} from '@nrad/service-kit';
import { Redis } from 'ioredis';
import { createGateway } from './app.ts';

import { loadGatewayConfig } from './config.ts';

const config = loadGatewayConfig();
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 });
const bus = await connectBus({ url: config.NATS_URL, name: 'gateway' });
const audit = new AuditTrail({
  bus,
  stream: config,
  service: 'gateway',
  logger,
  spool: new RedisAuditSpool(redis, config.REDIS_PREFIX),
});
await audit.start();
const { app, metricsApp, close } = createGateway({ config, redis, logger, audit });
const { server, port } = await listen(app, config.PORT, config.HOST);
const metrics = await listen(metricsApp, config.METRICS_PORT, config.METRICS_HOST);
logger.info({ port, metricsPort: metrics.port }, 'gateway listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['metrics', () => closeServer(metrics.server)],
  ['upstreams', async () => close()],
  ['audit', () => audit.stop()],
  ['nats', () => bus.nc.drain()],
  ['redis', () => redis.quit()],
]);
