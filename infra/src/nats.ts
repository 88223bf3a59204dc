import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.ts';
import { freePort } from './ports.ts';
import { type ManagedProcess, spawnManaged, waitForListening } from './process.ts';
import { findCommand } from './system-packages.ts';

/** NRAD's NATS users and their permissions (issue 37): one per part, and the operator's tools. */
export const NATS_CONFIG = path.join(REPO_ROOT, 'infra', 'nats', 'nats-server.conf');
export const NATS_USERS = [
  'gateway',
  'auth',
  'records',
  'linking',
  'stats',
  'ingest',
  'report',
  'audit',
  'ops',
  'operator',
] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/**
 * A new NATS password. nats-server reads an environment variable's value as a config value, not as
 * text: a password must be one bare word (a letter, then hex digits), or it does not start.
 */
export function newNatsPassword(): string {
  return `n${randomBytes(24).toString('hex')}`;
}

/** Whether a password is one nats-server reads from its environment as it is (newNatsPassword). */
export const isNatsPassword = (password: string | undefined) => /^n[0-9a-f]{48}$/.test(password ?? '');

/** The environment variable of a NATS user's password (nats-server.conf reads it). */
export const natsPasswordVariable = (user: NatsUser) => `NATS_${user.toUpperCase()}_PASSWORD`;

/** A NATS URL with a user's credentials (`nats://linking:<password>@127.0.0.1:4222`). */
export function natsUrlAs(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  return u.toString().replace(/\/$/, '');
}

/**
 * Starts nats-server with JetStream storing under `storeDir`; resolves once it accepts clients.
 * With `passwords` (each user's, NATS_USERS) it requires them, with each part's permissions
 * (nats-server.conf); without, anyone on the host may connect (tests' throwaway servers).
 */
export async function startNats(options: {
  storeDir: string;
  port?: number;
  logFile?: string;
  passwords?: Record<NatsUser, string>;
}): Promise<{ url: string; process: ManagedProcess }> {
  const bin = findCommand('nats-server');
  if (!bin) throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  mkdirSync(options.storeDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', options.storeDir];
  const { passwords } = options;
  if (passwords) args.unshift('-c', NATS_CONFIG);
  const env = passwords
    ? {
        ...process.env,
        ...Object.fromEntries(NATS_USERS.map((user) => [natsPasswordVariable(user), passwords[user]])),
      }
    : process.env;
  const proc = spawnManaged('nats', bin, args, { env, ...(options.logFile ? { logFile: options.logFile } : {}) });
  await waitForListening(proc, port, 'nats-server');
  return { url: `nats://127.0.0.1:${port}`, process: proc };
}
