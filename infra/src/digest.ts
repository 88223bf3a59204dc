import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every file under a directory, as paths relative to it, sorted (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * A digest of files by content, each named relative to `root` (a renamed file changes it too):
 * what decides whether a build or a slow suite must run again (build.ts, ferretdb.ts; ADR 0021).
 */
export function contentDigest(files: readonly string[], root: string): string {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${path.relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}
