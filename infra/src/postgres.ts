import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { spawnManaged, waitForListening } from './process.ts';
import { ensureDebianPackages } from './system-packages.ts';

/** The bin folder of the newest PostgreSQL Debian installs (initdb is not on PATH there). */
function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(base, versions[0], 'bin') : undefined;
}

/**
 * Starts a throwaway PostgreSQL cluster in a new temporary directory on a free port (trust
 * authentication, loopback only, no fsync), for testing the embedded FerretDB's optional PostgreSQL
 * backend. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user. `stop()`
 * stops it and removes its directory.
 */
export async function startPostgres(options: { logFile?: string } = {}): Promise<{
  url: string;
  stop(): Promise<void>;
}> {
  let bin = postgresBin();
  if (!bin) {
    ensureDebianPackages([{ command: 'pg_ctlcluster', pkg: 'postgresql' }]);
    bin = postgresBin();
  }
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-postgresql-'));
  const asRoot = process.getuid?.() === 0;
  const wrap = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const [initCmd, initArgs] = wrap(path.join(bin, 'initdb'), [
    '-D',
    dir,
    '-A',
    'trust',
    '-U',
    'nrad',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);

  const port = await freePort();
  const [cmd, args] = wrap(path.join(bin, 'postgres'), [
    '-D',
    dir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ]);
  const proc = spawnManaged('postgresql', cmd, args, { ...(options.logFile ? { logFile: options.logFile } : {}) });
  try {
    await waitForListening(proc, port, 'PostgreSQL', 30_000);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://nrad@127.0.0.1:${port}/postgres`,
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
