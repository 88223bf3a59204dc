import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FERRETDB_BINARY, FERRETDB_SOURCE_DIR } from './paths.ts';
import { type ManagedProcess, spawnManaged } from './process.ts';
import { findCommand } from './system-packages.ts';

const SOURCES = ['main.go', 'go.mod', 'go.sum', 'patches.json'];
const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';

/** A one-line change to a file of the FerretDB module, applied at build time (patches.json says why). */
interface SourcePatch {
  file: string;
  find: string;
  replace: string;
  why: string;
}

/**
 * Copies the FerretDB module beside the binary, applies patches.json to the copy, and writes the
 * go.mod to build with (`-modfile`): ours plus a `replace` naming the copy. The module cache and
 * our go.mod stay untouched (Go refuses `-overlay` for files in the module cache), and nothing
 * patched is committed. A patch whose text is not found exactly once stops the build: a FerretDB
 * upgrade must re-check it.
 */
function writePatchedModule(go: string): string {
  const patches = JSON.parse(readFileSync(path.join(FERRETDB_SOURCE_DIR, 'patches.json'), 'utf8')) as SourcePatch[];
  const download = spawnSync(go, ['mod', 'download', '-json', FERRETDB_MODULE], {
    cwd: FERRETDB_SOURCE_DIR,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (download.status !== 0) throw new Error(`go mod download ${FERRETDB_MODULE} failed (exit ${download.status})`);
  const moduleDir = (JSON.parse(download.stdout) as { Dir?: string }).Dir;
  if (!moduleDir) throw new Error(`go mod download did not say where ${FERRETDB_MODULE} is`);
  const work = path.join(path.dirname(FERRETDB_BINARY), 'patched');
  const copy = path.join(work, 'FerretDB');
  rmSync(work, { recursive: true, force: true });
  cpSync(moduleDir, copy, { recursive: true });
  writable(copy);
  for (const [i, patch] of patches.entries()) {
    const file = path.join(copy, patch.file);
    const text = readFileSync(file, 'utf8');
    const found = text.split(patch.find).length - 1;
    if (found !== 1)
      throw new Error(`FerretDB patch ${i + 1} (${patch.file}): its text is found ${found} times, not once`);
    writeFileSync(file, text.replace(patch.find, patch.replace));
  }
  const modfile = path.join(work, 'go.mod');
  const ours = readFileSync(path.join(FERRETDB_SOURCE_DIR, 'go.mod'), 'utf8');
  writeFileSync(modfile, `${ours}\nreplace ${FERRETDB_MODULE} => ${copy}\n`);
  cpSync(path.join(FERRETDB_SOURCE_DIR, 'go.sum'), path.join(work, 'go.sum'));
  return modfile;
}

/** The module cache's copies are read-only; the patched copy must be writable (and removable). */
function writable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) writable(p);
    else chmodSync(p, 0o644);
  }
}

/** Whether the built binary is missing or older than its sources. */
export function ferretdbNeedsBuild(): boolean {
  if (!existsSync(FERRETDB_BINARY)) return true;
  const built = statSync(FERRETDB_BINARY).mtimeMs;
  return SOURCES.some((f) => statSync(path.join(FERRETDB_SOURCE_DIR, f)).mtimeMs > built);
}

/**
 * Builds infra/ferretdb (our tiny main package embedding FerretDB v1.24.2, with patches.json
 * applied) with the machine's Go, when the binary is missing or stale. The first build downloads modules and takes about a minute.
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
  const modfile = writePatchedModule(go);
  const result = spawnSync(go, ['build', '-trimpath', `-modfile=${modfile}`, '-o', FERRETDB_BINARY, '.'], {
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
