import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is infra/src/paths.ts). */
export const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Where local runs keep their data unless NRAD_DATA_DIR says otherwise (git-ignored). */
export function dataDir(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(REPO_ROOT, env.NRAD_DATA_DIR || '.data');
}

export const FERRETDB_SOURCE_DIR = path.join(REPO_ROOT, 'infra', 'ferretdb');
export const FERRETDB_BINARY = path.join(FERRETDB_SOURCE_DIR, 'bin', 'nrad-ferretdb');
/** The same program built against FerretDB as published (for the differential test only). */
export const FERRETDB_UPSTREAM_BINARY = path.join(FERRETDB_SOURCE_DIR, 'bin', 'nrad-ferretdb-upstream');
