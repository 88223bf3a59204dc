import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadStatsConfig } from './config.ts';

const config = loadStatsConfig();
const logger = createLogger({ name: 'stats', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'stats' });
const stats = await createApp({ config, db, bus, logger });
const { server, port } = await listen(stats.app, config.PORT, config.HOST);
logger.info({ port }, 'stats service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['consumer', () => stats.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
