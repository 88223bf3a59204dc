import { mkdirSync } from 'node:fs';
import { freePort } from './ports.ts';
import { type ManagedProcess, spawnManaged, waitForListening } from './process.ts';
import { findCommand } from './system-packages.ts';

/** Starts nats-server with JetStream storing under `storeDir`; resolves once it accepts clients. */
export async function startNats(options: {
  storeDir: string;
  port?: number;
  logFile?: string;
}): Promise<{ url: string; process: ManagedProcess }> {
  const bin = findCommand('nats-server');
  if (!bin) throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  mkdirSync(options.storeDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const proc = spawnManaged('nats', bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', options.storeDir], {
    ...(options.logFile ? { logFile: options.logFile } : {}),
  });
  await waitForListening(proc, port, 'nats-server');
  return { url: `nats://127.0.0.1:${port}`, process: proc };
}
