import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { FERRETDB_BINARY, FERRETDB_SOURCE_DIR } from './paths.ts';
import { type ManagedProcess, spawnManaged } from './process.ts';
import { findCommand } from './system-packages.ts';

const SOURCES = ['main.go', 'go.mod', 'go.sum'];

/** Whether the built binary is missing or older than its sources. */
export function ferretdbNeedsBuild(): boolean {
  if (!existsSync(FERRETDB_BINARY)) return true;
  const built = statSync(FERRETDB_BINARY).mtimeMs;
  return SOURCES.some((f) => statSync(path.join(FERRETDB_SOURCE_DIR, f)).mtimeMs > built);
}

/**
 * Builds infra/ferretdb (our tiny main package embedding FerretDB v1.24.2) with the machine's Go,
 * when the binary is missing or stale. The first build downloads modules and takes about a minute.
 */
export function ensureFerretdbBinary(log = console.error): string {
  if (!ferretdbNeedsBuild()) return FERRETDB_BINARY;
  const go = findCommand('go');
  if (!go) {
    throw new Error(
      'Go (>= 1.24) is needed to build the embedded FerretDB server (infra/ferretdb). Install it from https://go.dev/dl/ and run again.',
    );
  }
  log('Building the embedded FerretDB server (infra/ferretdb; the first build takes about a minute)...');
  const result = spawnSync(go, ['build', '-trimpath', '-o', FERRETDB_BINARY, '.'], {
    cwd: FERRETDB_SOURCE_DIR,
    env: { ...process.env, CGO_ENABLED: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`go build of infra/ferretdb failed (exit ${result.status})`);
  return FERRETDB_BINARY;
}

export interface FerretdbOptions {
  /** SQLite backend: a directory, one file per database. */
  sqliteDir?: string;
  /** PostgreSQL backend instead of SQLite. */
  postgresqlUrl?: string;
  port?: number;
  logFile?: string;
}

/** Starts the embedded server and resolves once it accepts connections, with its URI. */
export async function startFerretdb(options: FerretdbOptions): Promise<{ url: string; process: ManagedProcess }> {
  const binary = ensureFerretdbBinary();
  const args = [`-listen-addr=127.0.0.1:${options.port ?? 0}`, `-parent-pid=${process.pid}`];
  if (options.postgresqlUrl) args.push(`-postgresql-url=${options.postgresqlUrl}`);
  else if (options.sqliteDir) args.push(`-sqlite-dir=${options.sqliteDir}`);
  else throw new Error('startFerretdb needs sqliteDir or postgresqlUrl');

  let resolveUri: (uri: string) => void = () => {};
  const uri = new Promise<string>((resolve) => {
    resolveUri = resolve;
  });
  const proc = spawnManaged('ferretdb', binary, args, {
    ...(options.logFile ? { logFile: options.logFile } : {}),
    onLine: (line) => {
      const m = /^ready (mongodb:\/\/\S+)/.exec(line);
      if (m?.[1]) resolveUri(m[1]);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    uri.then((u) => ({ ok: true as const, u })),
    proc.exited.then((code) => ({ ok: false as const, code })),
    new Promise<{ ok: false; code: 'timeout' }>((r) => {
      timer = setTimeout(() => r({ ok: false, code: 'timeout' }), 30_000);
    }),
  ]);
  clearTimeout(timer);
  if (!outcome.ok) {
    await proc.stop(1000);
    throw new Error(`FerretDB did not start (${outcome.code}):\n${proc.tail()}`);
  }
  return { url: outcome.u, process: proc };
}
