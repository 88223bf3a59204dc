import { closeServer, connectBus, createLogger, listen, onShutdown } from '@nrad/service-kit';
import { createApp } from './app.ts';
import { loadOpsConfig } from './config.ts';

const config = loadOpsConfig();
const logger = createLogger({ name: 'ops', level: config.LOG_LEVEL });
const bus = await connectBus({ url: config.NATS_URL, name: 'ops' });
const ops = await createApp({ config, bus, logger });
const { server, port } = await listen(ops.app, config.PORT, config.HOST);
logger.info(
  { port, queues: config.OPS_QUEUES, services: config.OPS_SERVICES.map((s) => s.name) },
  'ops service listening',
);
onShutdown(logger, [
  ['http', () => closeServer(server)],
  ['audit trail and queues', () => ops.stop()],
  ['nats', () => bus.nc.drain()],
]);
