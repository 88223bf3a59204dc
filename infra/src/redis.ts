import { mkdirSync } from 'node:fs';
import { freePort } from './ports.ts';
import { type ManagedProcess, spawnManaged, waitForListening } from './process.ts';
import { findCommand } from './system-packages.ts';

/**
 * Starts redis-server on 127.0.0.1. With `persist` it keeps an append-only file in `dir` (sessions
 * and queued jobs survive a restart); without, it keeps nothing on disk (tests).
 */
export async function startRedis(options: {
  dir: string;
  persist: boolean;
  port?: number;
  logFile?: string;
}): Promise<{ url: string; process: ManagedProcess }> {
  const bin = findCommand('redis-server');
  if (!bin) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  mkdirSync(options.dir, { recursive: true });
  const port = options.port ?? (await freePort());
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', options.dir, '--save', ''];
  args.push('--appendonly', options.persist ? 'yes' : 'no', '--daemonize', 'no', '--protected-mode', 'yes');
  const proc = spawnManaged('redis', bin, args, { ...(options.logFile ? { logFile: options.logFile } : {}) });
  await waitForListening(proc, port, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, process: proc };
}
