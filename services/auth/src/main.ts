import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadAuthConfig } from './config.ts';

const config = loadAuthConfig();
const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'auth' });
const auth = await createApp({ config, db, bus, logger });
const { server, port } = await listen(auth.app, config.PORT, config.HOST);
logger.info({ port }, 'auth service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['audit trail', () => auth.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
