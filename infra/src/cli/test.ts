// `npm test`: installs what is missing, then typecheck, lint, the import-cycle check (ADR 0018),
// build, and every test (unit and integration against real FerretDB, NATS and Redis). Exits
// non-zero on any failure. Arguments after `--` go to vitest (e.g. `npm test -- --project auth`).
//
// `npm run test:fast` (`--fast`): the edit–test loop's tier — typecheck, lint, cycles and the unit and
// service tests (every project but the screens, the browser journeys, infra's whole-system suites
// and the benchmarks); no build. `npm test` stays the full gate CI runs (ADR 0021).
import { spawnSync } from 'node:child_process';
import { FAST_PROJECTS } from '../../../vitest.config.ts';
import { buildIfChanged } from '../build.ts';
import { ensureFerretdbBinary } from '../ferretdb.ts';
import { REPO_ROOT } from '../paths.ts';
import { BROWSER_PACKAGES, ensureDebianPackages, SERVER_PACKAGES } from '../system-packages.ts';

const results: Array<[string, number, boolean]> = [];

function step(name: string, command: string, args: string[]): boolean {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  return timed(
    name,
    () => spawnSync(command, args, { cwd: REPO_ROOT, stdio: 'inherit', env: process.env }).status === 0,
  );
}

function timed(name: string, run: () => boolean): boolean {
  const started = Date.now();
  let ok = false;
  try {
    ok = run();
  } catch (err) {
    console.error((err as Error).message);
  }
  results.push([name, (Date.now() - started) / 1000, ok]);
  return ok;
}

/** The build `npm start` and the benchmarks then find up to date (infra/src/build.ts). */
function build(): boolean {
  console.log('\n=== build: npm run build --workspaces (unless nothing it reads changed)');
  return timed('build', () => {
    buildIfChanged((line) => console.log(line));
    return true;
  });
}

const fast = process.argv.includes('--fast');
const vitestArgs = process.argv.slice(2).filter((a) => a !== '--fast');

// The end-to-end test of `npm start` always runs the embedded servers, so they are needed even
// when the other tests use servers from the environment; the screen tests need Chromium.
ensureDebianPackages(fast ? SERVER_PACKAGES : [...SERVER_PACKAGES, ...BROWSER_PACKAGES]);
ensureFerretdbBinary();

const started = Date.now();
const ok =
  step('typecheck', 'npm', ['run', 'typecheck', '--silent']) &&
  step('lint', 'npx', ['biome', 'ci', '--error-on-warnings', '.']) &&
  step('cycles', 'npm', ['run', 'check:cycles', '--silent']) &&
  (fast || build()) &&
  step('tests', 'npx', [
    'vitest',
    'run',
    ...(fast ? FAST_PROJECTS.flatMap((p) => ['--project', p]) : []),
    ...vitestArgs,
  ]);

console.log(`\n=== summary (${fast ? 'test:fast' : 'npm test'})`);
for (const [name, seconds, passed] of results)
  console.log(`${passed ? 'ok  ' : 'FAIL'} ${name} (${seconds.toFixed(1)} s)`);
console.log(`${ok ? 'ok  ' : 'FAIL'} in all (${((Date.now() - started) / 1000).toFixed(1)} s)`);
process.exit(ok ? 0 : 1);
