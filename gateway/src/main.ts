import { closeServer, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { Redis } from 'ioredis';
import { createGateway } from './app.ts';
import { loadGatewayConfig } from './config.ts';

const config = loadGatewayConfig();
const logger = createLogger({ name: 'gateway', level: config.LOG_LEVEL });
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2 });
const { app, metricsApp, close } = createGateway({ config, redis, logger });
const { server, port } = await listen(app, config.PORT, config.HOST);
const metrics = await listen(metricsApp, config.METRICS_PORT, config.METRICS_HOST);
logger.info({ port, metricsPort: metrics.port }, 'gateway listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['metrics', () => closeServer(metrics.server)],
  ['upstreams', async () => close()],
  ['redis', () => redis.quit()],
]);
