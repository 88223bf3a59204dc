import { closeServer, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadAuthConfig } from './config.ts';

const config = loadAuthConfig();
const logger = createLogger({ name: 'auth', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const { app } = await createApp({ config, db, logger });
const { server, port } = await listen(app, config.PORT, config.HOST);
logger.info({ port }, 'auth service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['mongo', () => db.close()],
]);
