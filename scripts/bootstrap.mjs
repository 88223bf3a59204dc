// Dependency-free first step of `npm start`, `npm test` and every other script on a fresh machine
// (ADR 0024). It may run on whatever `node` the machine has (Debian's Node 20 here): it installs the
// npm packages when node_modules is missing or older than package-lock.json — among them the
// project's own Node.js 24, the registry's `node` package, at node_modules/.bin/node — then runs the
// script again on that Node (a child process: signals are passed on, its exit status is returned),
// with node_modules/.bin first on PATH so that every process it starts (npm, npx, vitest, tsx, tsc,
// the services, the builds) runs on Node 24 too. There it hands over to the TypeScript runner
// (through tsx, which that install provides).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Node.js major NRAD runs on (package.json `engines`, the `node` devDependency, the images). */
export const NODE_MAJOR = 24;

const binDir = path.join(root, 'node_modules', '.bin');
/** The project's Node: the `node` devDependency's binary, linked by `npm ci`. */
export const projectNode = path.join(binDir, 'node');

function installNeeded() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return true;
  if (!existsSync(projectNode)) return true;
  return statSync(path.join(root, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs;
}

/** Runs `npm ci` when needed; exits with npm's status if it fails. */
export function ensureNodeModules() {
  if (!installNeeded()) return;
  console.error(`Installing npm packages (npm ci, on Node ${process.version})...`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('npm ci failed; see the output above.');
    process.exit(result.status ?? 1);
  }
}

/** Whether this process is the project's Node binary (same file, whichever link started it). */
function runningProjectNode() {
  if (!existsSync(projectNode)) return false;
  const self = statSync(process.execPath);
  const project = statSync(projectNode);
  return self.dev === project.dev && self.ino === project.ino;
}

/** node_modules/.bin first on PATH (once), for this process and every process it starts. */
function binFirstOnPath(env) {
  const entries = (env.PATH ?? '').split(path.delimiter).filter((entry) => entry !== '');
  return [binDir, ...entries.filter((entry) => path.resolve(entry) !== binDir)].join(path.delimiter);
}

/**
 * Runs this script again on the project's Node and ends with its exit status (or signal); never
 * returns. SIGINT, SIGTERM and SIGHUP sent to this process are passed on (a Ctrl-C that reaches
 * both — the terminal signals the whole process group — is handled once: `npm start` stops once).
 */
function reexec() {
  const child = spawn(projectNode, [...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: binFirstOnPath(process.env), NRAD_REEXEC_FROM: process.execPath },
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  child.once('error', (err) => {
    console.error(`Could not start the project's Node (${projectNode}): ${err.message}`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const s of signals) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return new Promise(() => {});
}

/**
 * Makes sure this script runs on the project's Node.js 24: installs the packages when needed and,
 * on any other Node, runs the script again on node_modules/.bin/node. Without that binary (a
 * platform the registry has no build of, or `npm ci --ignore-scripts`) a Node 24 already running
 * is used as it is; anything older stops here with a message. `announce` prints which Node runs.
 */
export async function ensureProjectNode({ announce = false } = {}) {
  ensureNodeModules();
  if (!runningProjectNode()) {
    if (existsSync(projectNode) && !process.env.NRAD_REEXEC_FROM) {
      if (announce) console.log(`Node ${process.version} (${process.execPath}): running again on the project's Node`);
      await reexec();
    }
    const major = Number(process.versions.node.split('.')[0]);
    if (major !== NODE_MAJOR) {
      console.error(
        `NRAD runs on Node.js ${NODE_MAJOR} (this is ${process.versions.node}). \`npm ci\` installs it at ` +
          `node_modules/.bin/node (the \`node\` devDependency)${existsSync(projectNode) ? ', which did not start' : ', which is missing: run npm ci again'}.`,
      );
      process.exit(1);
    }
  }
  process.env.PATH = binFirstOnPath(process.env);
  delete process.env.NRAD_REEXEC_FROM;
  if (announce) {
    const where = runningProjectNode() ? path.relative(root, projectNode) : process.execPath;
    console.log(`Node ${process.version} (${where})`);
  }
}

/**
 * Installs npm packages if needed, runs on the project's Node, then runs a TypeScript entry point
 * in this process.
 */
export async function runTypeScript(entry, options = {}) {
  await ensureProjectNode(options);
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, entry)).href);
}
