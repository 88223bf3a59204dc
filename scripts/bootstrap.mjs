// Dependency-free first step of `npm start` and `npm test` on a fresh machine: checks Node, installs
// the npm packages when node_modules is missing or older than package-lock.json, then hands over to
// the TypeScript runner (through tsx, which that install provides).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    console.error(`NRAD needs Node.js >= 20.19 (this is ${process.versions.node}).`);
    process.exit(1);
  }
}

function installNeeded() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(marker)) return true;
  return statSync(path.join(root, 'package-lock.json')).mtimeMs > statSync(marker).mtimeMs;
}

/** Runs `npm ci` when needed; exits with npm's status if it fails. */
export function ensureNodeModules() {
  checkNode();
  if (!installNeeded()) return;
  console.error('Installing npm packages (npm ci)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('npm ci failed; see the output above.');
    process.exit(result.status ?? 1);
  }
}

/** Installs npm packages if needed, then runs a TypeScript entry point in this process. */
export async function runTypeScript(entry) {
  ensureNodeModules();
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, entry)).href);
}
