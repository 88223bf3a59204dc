import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Logger } from './logger.ts';

/** Starts listening; resolves with the server and the port it got (port 0 picks a free one). */
export async function listen(app: Koa<never, never> | Koa, port: number, host: string) {
  const server: Server = (app as Koa).listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // Keep-alive sockets from the gateway must not outlive a shutdown by more than a moment.
  server.keepAliveTimeout = 5_000;
  return { server, port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * On SIGINT/SIGTERM runs the steps in order (HTTP server, then consumers and workers, then
 * connections), each logged, then exits. A second signal exits at once.
 */
export function onShutdown(logger: Logger, steps: Array<[name: string, step: () => Promise<unknown>]>): void {
  let stopping = false;
  const run = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        logger.error({ err, step: name }, 'shutdown step failed');
      }
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void run('SIGINT'));
  process.on('SIGTERM', () => void run('SIGTERM'));
}
