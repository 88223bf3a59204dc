/**
 * `nrad-frontend-build [--watch] [--force]`, run in a frontend's folder: builds it with its
 * frontend.config.ts (unless nothing it reads changed since the last build), writes a `.gz` beside
 * every text file (the gateway serves those to browsers that take gzip) and prints the sizes.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rspack, type Stats } from '@rspack/core';
import type { FrontendDefinition } from './frontend.ts';
import { rspackConfig } from './rspack-config.ts';

const appDir = process.cwd();
const watch = process.argv.includes('--watch');
const force = process.argv.includes('--force');
const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const definition = (
  (await import(pathToFileURL(path.join(appDir, 'frontend.config.ts')).href)) as {
    default: FrontendDefinition;
  }
).default;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) yield* files(full);
    else yield full;
  }
}

/**
 * A digest of everything a build reads: the app's sources and settings, @nrad/shared, the build
 * kit, the contracts and the lock file. The same digest as the last build: nothing to do (so
 * `npm start` and tests that build do not rewrite files another process is serving).
 */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const roots = [
    path.join(appDir, 'src'),
    path.join(appDir, 'frontend.config.ts'),
    path.join(appDir, 'package.json'),
    path.join(repoRoot, 'frontends', 'shared', 'src'),
    path.join(repoRoot, 'frontends', 'build', 'src'),
    path.join(repoRoot, 'contracts', 'src'),
    path.join(repoRoot, 'package-lock.json'),
  ];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    const list = statSync(root).isDirectory() ? [...files(root)].sort() : [root];
    for (const file of list) {
      if (/\.test\.tsx?$/.test(file)) continue;
      hash.update(path.relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}

function compress(dist: string): Array<{ file: string; bytes: number; gzip: number }> {
  const sizes = [];
  for (const file of files(dist)) {
    if (!/\.(js|css|html|json|svg|txt)$/.test(file)) continue;
    const data = readFileSync(file);
    const gz = gzipSync(data, { level: 9 });
    writeFileSync(`${file}.gz`, gz);
    if (file.endsWith('.js')) sizes.push({ file: path.relative(dist, file), bytes: data.length, gzip: gz.length });
  }
  return sizes.sort((a, b) => b.gzip - a.gzip);
}

function report(stats: Stats | undefined, started: number): boolean {
  if (!stats || stats.hasErrors()) {
    console.error(stats?.toString({ colors: false, preset: 'errors-warnings' }) ?? 'build failed');
    return false;
  }
  if (stats.hasWarnings()) console.warn(stats.toString({ colors: false, preset: 'errors-warnings' }));
  const sizes = compress(path.join(appDir, 'dist'));
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, digest);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const total = sizes.reduce((s, f) => s + f.gzip, 0);
  console.error(
    `built ${definition.name} in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
      `${sizes.length} JavaScript files, ${kb(total)} gzip in all; largest ${sizes
        .slice(0, 3)
        .map((f) => `${f.file} ${kb(f.gzip)}`)
        .join(', ')}`,
  );
  return true;
}

const stamp = path.join(appDir, 'dist', '.inputs');
const digest = inputsDigest();
if (!watch && !force && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) {
  console.error(`${definition.name} is up to date (nrad-frontend-build --force rebuilds it)`);
  process.exit(0);
}

const compiler = rspack(rspackConfig(definition, appDir));
if (watch) {
  compiler.watch({}, (error, stats) => {
    if (error) console.error(error);
    else report(stats, performance.now());
  });
} else {
  const started = performance.now();
  compiler.run((error, stats) => {
    compiler.close(() => {
      if (error) {
        console.error(error);
        process.exit(1);
      }
      process.exit(report(stats, started) ? 0 : 1);
    });
  });
}
