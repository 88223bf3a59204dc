import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
  /** Required of every client (issue 37); kept in a file only the owner reads, never on the command line. */
  password?: string;
}): Promise<{ url: string; process: ManagedProcess }> {
  const bin = findCommand('redis-server');
  if (!bin) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  mkdirSync(options.dir, { recursive: true });
  const port = options.port ?? (await freePort());
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--dir', options.dir, '--save', ''];
  if (options.password) {
    const file = path.join(options.dir, 'auth.conf');
    writeFileSync(file, `requirepass "${options.password}"\n`, { mode: 0o600 });
    args.unshift(file);
  }
  args.push('--appendonly', options.persist ? 'yes' : 'no', '--daemonize', 'no', '--protected-mode', 'yes');
  // Every write is on disk before Redis answers it. With the default (`everysec`) a killed or
  // crashed redis-server loses up to the last second of writes it had acknowledged: a BullMQ job
  // an upload was just answered 202 for (the upload then stays queued forever), a session just
  // signed in. Our writes are few (a job's add, its lock renewals and moves; a session per request
  // at most), so the fsync each costs little. Measured on the 2-core development VM: redis-benchmark
  // SET 104,700/s and p50 0.023 ms with everysec, 10,800/s and p50 0.23 ms with always; the fault
  // suite's work without faults (1,000 creates through the gateway beside a 10,000-row upload)
  // 34.0 s with everysec, 35.2 and 38.9 s with always.
  if (options.persist) args.push('--appendfsync', 'always');
  const proc = spawnManaged('redis', bin, args, { ...(options.logFile ? { logFile: options.logFile } : {}) });
  await waitForListening(proc, port, 'redis-server');
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : '';
  return { url: `redis://${auth}127.0.0.1:${port}`, process: proc };
}
