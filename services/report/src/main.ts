import { closeServer, connectMongo, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadReportConfig } from './config.ts';

const config = loadReportConfig();
const logger = createLogger({ name: 'report', level: config.LOG_LEVEL });
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const report = await createApp({ config, db, logger });
const { server, port } = await listen(report.app, config.PORT, config.HOST);
logger.info({ port, worker: config.REPORT_WORKER }, 'report service listening');
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['worker and queue', () => report.stop()],
  ['mongo', () => db.close()],
]);
