import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { contentDigest, filesUnder } from './digest.ts';
import { REPO_ROOT } from './paths.ts';

interface Workspace {
  dir: string;
  /** Whether its build writes a `dist` folder (a service bundle, a frontend), not only says it has none. */
  builds: boolean;
}

function workspaces(root: string): Workspace[] {
  const { workspaces: dirs } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  return dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    const build = pkg.scripts?.build ?? '';
    return { dir, builds: build !== '' && !build.startsWith('echo ') };
  });
}

/**
 * A digest of everything the build reads: every workspace's package.json, the sources of the
 * workspaces a build bundles (every workspace but the browser journeys, the benchmarks and the
 * research tools, which no build reads), the lock file, the TypeScript settings and the commit
 * the bundles are stamped with. Test files are left out: no build reads them.
 */
export function buildInputsDigest(root = REPO_ROOT): string {
  const notRead = new Set(['frontends/e2e', 'bench', 'tools/linkage']);
  const inputs = ['package.json', 'package-lock.json', 'tsconfig.base.json'];
  for (const { dir } of workspaces(root)) {
    inputs.push(path.join(dir, 'package.json'));
    if (notRead.has(dir)) continue;
    for (const sub of ['src', 'bin', 'frontend.config.ts', 'tsconfig.json']) inputs.push(path.join(dir, sub));
  }
  const files = inputs
    .map((input) => path.join(root, input))
    .filter((full) => existsSync(full))
    .flatMap((full) => (statSync(full).isDirectory() ? filesUnder(full).map((f) => path.join(full, f)) : [full]))
    .filter((file) => !/\.test\.tsx?$/.test(file));
  return `${contentDigest(files, root)} ${process.env.NRAD_COMMIT ?? gitHead(root)}`;
}

function gitHead(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}

/** Whether every workspace that builds has its `dist` folder. */
function outputsPresent(root: string): boolean {
  return workspaces(root).every(({ dir, builds }) => {
    if (!builds) return true;
    const dist = path.join(root, dir, 'dist');
    return existsSync(dist) && readdirSync(dist).length > 0;
  });
}

/**
 * Builds every deployable (`npm run build --workspaces`) unless nothing the build reads changed
 * since the last successful build and its outputs are all there; `force` builds anyway. Returns
 * whether it built. Throws when the build fails (its output is on stderr). `npm start`, the
 * benchmarks and `npm test` build through this, so a whole-system test does not spend seconds
 * starting npm once per workspace to learn that nothing changed (ADR 0021).
 */
export function buildIfChanged(say: (line: string) => void, options: { force?: boolean; root?: string } = {}): boolean {
  const root = options.root ?? REPO_ROOT;
  // Per checkout, never committed.
  const stamp = path.join(root, 'node_modules', '.cache', 'nrad-build', 'digest');
  const digest = buildInputsDigest(root);
  if (!options.force && outputsPresent(root) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) {
    say('Build is up to date (nothing it reads changed since the last build)');
    return false;
  }
  say('Building...');
  const build = spawnSync('npm', ['run', 'build', '--workspaces', '--if-present', '--silent'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) throw new Error('The build failed; see the output above.');
  mkdirSync(path.dirname(stamp), { recursive: true });
  // The digest taken before the build: a source changed while it ran is built next time.
  writeFileSync(stamp, digest);
  return true;
}
