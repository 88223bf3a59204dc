#!/usr/bin/env node
// nrad-bundle <entry.ts> [out.js]: bundles a service's TypeScript, with the workspace packages it
// imports (@nrad/*, consumed from source), into one ESM file for Node. Packages from the npm
// registry stay external and are loaded from node_modules at run time (native addons such as
// argon2 cannot be bundled).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const [entry, out = 'dist/main.js'] = process.argv.slice(2);
if (!entry) {
  console.error('usage: nrad-bundle <entry.ts> [out.js]');
  process.exit(2);
}

const externalRegistryPackages = {
  name: 'external-registry-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@nrad/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * The build's version, shown by /readyz and the operations console: the deployable's package
 * version and, where the source is a git checkout, its commit (`0.1.0+f0ce263`; NRAD_COMMIT wins).
 */
function buildVersion() {
  const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
  let commit = process.env.NRAD_COMMIT ?? '';
  if (!commit) {
    try {
      commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      // not a checkout (a Docker build context without .git): the package version alone
    }
  }
  return commit ? `${version}+${commit}` : version;
}

const started = performance.now();
await build({
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [externalRegistryPackages],
  define: { __NRAD_VERSION__: JSON.stringify(buildVersion()) },
});
console.error(`bundled ${path.relative(process.cwd(), out)} in ${Math.round(performance.now() - started)} ms`);
