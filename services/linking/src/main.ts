import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadLinkingConfig } from './config.ts';

const config = loadLinkingConfig();
const logger = createLogger({ name: 'linking', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'linking' });
const linking = await createApp({ config, db, bus, logger });
const { server, port } = await listen(linking.app, config.PORT, config.HOST);
logger.info({ port }, 'linking service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['consumer, relay and audit trail', () => linking.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
