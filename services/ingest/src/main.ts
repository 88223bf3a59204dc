import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadIngestConfig } from './config.ts';

const config = loadIngestConfig();
const logger = createLogger({ name: 'ingest', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'ingest' });
const ingest = await createApp({ config, db, bus, logger });
const { server, port } = await listen(ingest.app, config.PORT, config.HOST);
logger.info({ port, worker: config.INGEST_WORKER }, 'ingest service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['worker, queue and audit trail', () => ingest.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
