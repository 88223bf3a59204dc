// `npm test`: installs what is missing, then typecheck, lint, the import-cycle check (ADR 0018),
// build, and every test (unit and integration against real FerretDB, NATS and Redis). Exits
// non-zero on any failure. Arguments after `--` go to vitest (e.g. `npm test -- --project auth`).
import { spawnSync } from 'node:child_process';
import { ensureFerretdbBinary } from '../ferretdb.ts';
import { REPO_ROOT } from '../paths.ts';
import { BROWSER_PACKAGES, ensureDebianPackages, SERVER_PACKAGES } from '../system-packages.ts';

const results: Array<[string, number, boolean]> = [];

function step(name: string, command: string, args: string[]): boolean {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: REPO_ROOT, stdio: 'inherit', env: process.env });
  const ok = r.status === 0;
  results.push([name, (Date.now() - started) / 1000, ok]);
  return ok;
}

// The end-to-end test of `npm start` always runs the embedded servers, so they are needed even
// when the other tests use servers from the environment; the screen tests need Chromium.
ensureDebianPackages([...SERVER_PACKAGES, ...BROWSER_PACKAGES]);
ensureFerretdbBinary();

const vitestArgs = process.argv.slice(2);
const ok =
  step('typecheck', 'npm', ['run', 'typecheck', '--silent']) &&
  step('lint', 'npx', ['biome', 'ci', '--error-on-warnings', '.']) &&
  step('cycles', 'npm', ['run', 'check:cycles', '--silent']) &&
  step('build', 'npm', ['run', 'build', '--workspaces', '--if-present', '--silent']) &&
  step('tests', 'npx', ['vitest', 'run', ...vitestArgs]);

console.log('\n=== summary');
for (const [name, seconds, passed] of results)
  console.log(`${passed ? 'ok  ' : 'FAIL'} ${name} (${seconds.toFixed(1)} s)`);
process.exit(ok ? 0 : 1);
