/**
 * `nrad-frontend-build [--watch]`, run in a frontend's folder: builds it with its
 * frontend.config.ts, writes a `.gz` beside every text file (the gateway serves those to browsers
 * that take gzip) and prints each JavaScript file's size.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rspack, type Stats } from '@rspack/core';
import type { FrontendDefinition } from './frontend.ts';
import { rspackConfig } from './rspack-config.ts';

const appDir = process.cwd();
const watch = process.argv.includes('--watch');
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
