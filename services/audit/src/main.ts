import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadAuditConfig } from './config.ts';

const config = loadAuditConfig();
const logger = createLogger({ name: 'audit', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'audit' });
const audit = await createApp({ config, db, bus, logger });
const { server, port } = await listen(audit.app, config.PORT, config.HOST);
logger.info({ port }, 'audit service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['consumers', () => audit.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
