import { closeServer, connectBus, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadReportConfig } from './config.ts';

const config = loadReportConfig();
const logger = createLogger({ name: 'report', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'report' });
const report = await createApp({ config, db, bus, logger });
const { server, port } = await listen(report.app, config.PORT, config.HOST);
logger.info({ port, worker: config.REPORT_WORKER }, 'report service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['worker, queue and audit trail', () => report.stop()],
  ['nats', () => bus.nc.drain()],
  ['mongo', () => db.close()],
]);
