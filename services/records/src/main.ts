import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadRecordsConfig } from './config.ts';

const config = loadRecordsConfig();
const logger = createLogger({ name: 'records', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'records' });
const { app, links, relay, redis } = await createApp({ config, db, bus, logger });
const { server, port } = await listen(app, config.PORT, config.HOST);
logger.info({ port }, 'records service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['links consumer', () => links.stop()],
  ['relay', () => relay.stop()],
  ['nats', () => bus.nc.drain()],
  ['redis', () => redis.quit().catch(() => redis.disconnect())],
  ['mongo', () => db.close()],
]);
