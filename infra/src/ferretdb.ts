import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { contentDigest, filesUnder } from './digest.ts';
import { FERRETDB_BINARY, FERRETDB_SOURCE_DIR, FERRETDB_UPSTREAM_BINARY } from './paths.ts';
import { type ManagedProcess, spawnManaged } from './process.ts';
import { findCommand } from './system-packages.ts';

const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
/** Whole files added to the FerretDB module, at their paths inside it (patches.json lists each). */
const PATCH_FILES_DIR = path.join(FERRETDB_SOURCE_DIR, 'patches');

/**
 * One change to the FerretDB module, applied at build time (patches.json says why): a text found
 * exactly once in a file of the module and replaced, or a whole file of `patches/` added.
 */
type SourcePatch = { file: string; find: string; replace: string; why: string } | { add: string; why: string };

/** What the program itself is built from (our main package and its modules). */
const PROGRAM_SOURCES = ['main.go', 'go.mod', 'go.sum'].map((f) => path.join(FERRETDB_SOURCE_DIR, f));

/**
 * The modules FerretDB v1.24.2 was published with (its own go.mod's versions: SQLite 3.46 through
 * modernc.org/sqlite v1.32.0), which the unpatched reference is built with. Our build takes a newer
 * SQLite (go.mod; ADR 0002), so the differential test compares both changes with FerretDB as
 * published.
 */
const UPSTREAM_MODFILE = path.join(FERRETDB_SOURCE_DIR, 'go.upstream.mod');
export const UPSTREAM_SOURCES = [
  path.join(FERRETDB_SOURCE_DIR, 'main.go'),
  UPSTREAM_MODFILE,
  path.join(FERRETDB_SOURCE_DIR, 'go.upstream.sum'),
];

/** What our build reads: a change to any of these makes the binary stale. */
export function buildSources(): string[] {
  return [
    ...PROGRAM_SOURCES,
    path.join(FERRETDB_SOURCE_DIR, 'patches.json'),
    ...filesUnder(PATCH_FILES_DIR).map((f) => path.join(PATCH_FILES_DIR, f)),
  ];
}

/** The FerretDB module's directory in Go's module cache (downloaded when missing). */
function moduleDirectory(go: string): string {
  const download = spawnSync(go, ['mod', 'download', '-json', FERRETDB_MODULE], {
    cwd: FERRETDB_SOURCE_DIR,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (download.status !== 0) throw new Error(`go mod download ${FERRETDB_MODULE} failed (exit ${download.status})`);
  const moduleDir = (JSON.parse(download.stdout) as { Dir?: string }).Dir;
  if (!moduleDir) throw new Error(`go mod download did not say where ${FERRETDB_MODULE} is`);
  return moduleDir;
}

/**
 * Applies patches.json to a writable copy of the FerretDB module: each edit's text must be found
 * exactly once, each added file must not exist in the module yet, and every file of `patches/`
 * must be listed (a FerretDB upgrade must re-check them all).
 */
export function applyPatches(copy: string): void {
  const patches = JSON.parse(readFileSync(path.join(FERRETDB_SOURCE_DIR, 'patches.json'), 'utf8')) as SourcePatch[];
  const listed = new Set<string>();
  for (const [i, patch] of patches.entries()) {
    if ('add' in patch) {
      const target = path.join(copy, patch.add);
      if (existsSync(target))
        throw new Error(`FerretDB patch ${i + 1} adds ${patch.add}, which the module already has`);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(PATCH_FILES_DIR, patch.add), target);
      listed.add(patch.add);
      continue;
    }
    const file = path.join(copy, patch.file);
    const text = readFileSync(file, 'utf8');
    const found = text.split(patch.find).length - 1;
    if (found !== 1)
      throw new Error(`FerretDB patch ${i + 1} (${patch.file}): its text is found ${found} times, not once`);
    writeFileSync(file, text.replace(patch.find, patch.replace));
  }
  const unlisted = filesUnder(PATCH_FILES_DIR).filter((f) => !listed.has(f));
  if (unlisted.length)
    throw new Error(`infra/ferretdb/patches has files patches.json does not add: ${unlisted.join(', ')}`);
}

/** Where the patched copy of the module is written (git-ignored). */
export const PATCHED_MODULE_DIR = path.join(path.dirname(FERRETDB_BINARY), 'patched', 'FerretDB');

/**
 * Copies the FerretDB module beside the binary, applies patches.json to the copy, and writes the
 * go.mod to build with (`-modfile`): ours (or `base`, another of infra/ferretdb's, with its .sum)
 * plus a `replace` naming the copy. The copy's own go.mod takes the modules `base` requires
 * directly (`requirementsOf`: our newer SQLite, ADR 0002 item 11), so that whatever runs in the
 * copy — FerretDB's own tests — runs on the modules the binary is built with. The module cache and
 * our go.mod stay untouched (Go refuses `-overlay` for files in the module cache), and nothing
 * patched is committed. Returns the go.mod to build with.
 */
export function writePatchedModule(go: string, copy = PATCHED_MODULE_DIR, base = 'go.mod'): string {
  const moduleDir = moduleDirectory(go);
  const work = path.dirname(copy);
  rmSync(work, { recursive: true, force: true });
  cpSync(moduleDir, copy, { recursive: true });
  writable(copy);
  applyPatches(copy);
  const requirements = requirementsOf(go, base);
  if (requirements.length > 0) {
    const edit = spawnSync(go, ['mod', 'edit', ...requirements.map((r) => `-require=${r}`)], {
      cwd: copy,
      encoding: 'utf8',
    });
    if (edit.status !== 0) throw new Error(`go mod edit of the module's copy failed: ${edit.stderr}`);
  }
  const modfile = path.join(work, 'go.mod');
  const ours = readFileSync(path.join(FERRETDB_SOURCE_DIR, base), 'utf8');
  writeFileSync(modfile, `${ours}\nreplace ${FERRETDB_MODULE} => ${copy}\n`);
  cpSync(path.join(FERRETDB_SOURCE_DIR, base.replace(/\.mod$/, '.sum')), path.join(work, 'go.sum'));
  return modfile;
}

/**
 * The modules a go.mod of infra/ferretdb (ours by default) requires directly besides FerretDB, as
 * `path@version`: ours a newer SQLite (ADR 0002 item 11), go.upstream.mod none.
 */
export function requirementsOf(go: string, base = 'go.mod'): string[] {
  const edit = spawnSync(go, ['mod', 'edit', '-json', base], { cwd: FERRETDB_SOURCE_DIR, encoding: 'utf8' });
  if (edit.status !== 0) throw new Error(`go mod edit -json failed (exit ${edit.status})`);
  const mod = JSON.parse(edit.stdout) as { Require?: Array<{ Path: string; Version: string; Indirect?: boolean }> };
  return (mod.Require ?? [])
    .filter((r) => !r.Indirect && r.Path !== FERRETDB_MODULE)
    .map((r) => `${r.Path}@${r.Version}`);
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

/** Whether a built binary is missing or older than its sources (by default: our build's). */
export function ferretdbNeedsBuild(binary = FERRETDB_BINARY, sources = buildSources()): boolean {
  if (!existsSync(binary)) return true;
  const built = statSync(binary).mtimeMs;
  return sources.some((f) => statSync(f).mtimeMs > built);
}

/**
 * A digest of what our build is made of, by content (the files `ferretdbNeedsBuild` watches, named
 * relative to infra/ferretdb): FerretDB's own Go tests are run again when it changes (ADR 0021).
 */
export function ferretdbSourcesDigest(sources = buildSources()): string {
  return contentDigest(sources, FERRETDB_SOURCE_DIR);
}

/** The machine's Go, or an error saying what to install. */
function requireGo(): string {
  const go = findCommand('go');
  if (!go) {
    throw new Error(
      'Go (>= 1.26) is needed to build the embedded FerretDB server (infra/ferretdb). Install it from https://go.dev/dl/ and run again.',
    );
  }
  return go;
}

/**
 * Builds infra/ferretdb (our tiny main package embedding FerretDB v1.24.2, with patches.json
 * applied) with the machine's Go, when the binary is missing or stale. The first build downloads modules and takes about a minute.
 */
export function ensureFerretdbBinary(log = console.error): string {
  if (!ferretdbNeedsBuild()) return FERRETDB_BINARY;
  const go = requireGo();
  log('Building the embedded FerretDB server (infra/ferretdb; the first build takes about a minute)...');
  const modfile = writePatchedModule(go);
  goBuild(go, [`-modfile=${modfile}`], FERRETDB_BINARY);
  return FERRETDB_BINARY;
}

/**
 * Builds the same program against FerretDB v1.24.2 as published, without patches.json and with
 * the modules it was published with (UPSTREAM_MODFILE): the reference the differential test (infra/test/ferretdb-differential.test.ts) compares our build
 * with.
 */
export function ensureUpstreamFerretdbBinary(log = console.error): string {
  if (!ferretdbNeedsBuild(FERRETDB_UPSTREAM_BINARY, UPSTREAM_SOURCES)) return FERRETDB_UPSTREAM_BINARY;
  const go = requireGo();
  log('Building unpatched FerretDB for comparison (about a minute the first time)...');
  goBuild(go, [`-modfile=${UPSTREAM_MODFILE}`], FERRETDB_UPSTREAM_BINARY);
  return FERRETDB_UPSTREAM_BINARY;
}

function goBuild(go: string, flags: string[], output: string): void {
  const result = spawnSync(go, ['build', '-trimpath', ...flags, '-o', output, '.'], {
    cwd: FERRETDB_SOURCE_DIR,
    env: { ...process.env, CGO_ENABLED: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`go build of infra/ferretdb failed (exit ${result.status})`);
}

/** Our build on the SQLite FerretDB v1.24.2 was published with (bench:store compares the two). */
export const FERRETDB_PUBLISHED_SQLITE_BINARY = path.join(
  path.dirname(FERRETDB_BINARY),
  'nrad-ferretdb-published-sqlite',
);

/**
 * Builds our patched FerretDB with the modules FerretDB v1.24.2 was published with
 * (UPSTREAM_MODFILE: SQLite 3.46) instead of ours, when missing or stale: what ADR 0002 item 11's
 * newer SQLite is measured against (`npm run bench:store`).
 */
export function ensurePublishedSqliteFerretdbBinary(log = console.error): string {
  const binary = FERRETDB_PUBLISHED_SQLITE_BINARY;
  if (!ferretdbNeedsBuild(binary, [...buildSources(), ...UPSTREAM_SOURCES])) return binary;
  const go = requireGo();
  log('Building our FerretDB on its published SQLite for comparison (about a minute the first time)...');
  const copy = path.join(path.dirname(FERRETDB_BINARY), 'patched-published-sqlite', 'FerretDB');
  goBuild(go, [`-modfile=${writePatchedModule(go, copy, path.basename(UPSTREAM_MODFILE))}`], binary);
  return binary;
}

export interface FerretdbOptions {
  /** The program to run (default: our patched build). */
  binary?: string;
  /** SQLite backend: a directory, one file per database. */
  sqliteDir?: string;
  /** PostgreSQL backend instead of SQLite. */
  postgresqlUrl?: string;
  port?: number;
  logFile?: string;
}

/** Starts the embedded server and resolves once it accepts connections, with its URI. */
export async function startFerretdb(options: FerretdbOptions): Promise<{ url: string; process: ManagedProcess }> {
  const binary = options.binary ?? ensureFerretdbBinary();
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
