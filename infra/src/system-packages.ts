import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import path from 'node:path';

const EXTRA_PATHS = ['/usr/sbin', '/usr/local/sbin', '/sbin', '/usr/local/go/bin'];

/** The full path of a command on PATH (or in the sbin folders Debian puts servers in). */
export function findCommand(command: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...EXTRA_PATHS];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Makes sure each command exists, installing its Debian package when it does not. Needs apt-get
 * and root (or sudo); otherwise fails with a message saying exactly what to install.
 */
export type DebianNeed = { command: string; pkg: string } | { file: string; pkg: string };

const present = (n: DebianNeed) => ('command' in n ? findCommand(n.command) !== undefined : existsSync(n.file));
const what = (n: DebianNeed) => ('command' in n ? n.command : n.file);

export function ensureDebianPackages(needs: DebianNeed[], log = console.error): void {
  const missing = needs.filter((n) => !present(n));
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map((m) => m.pkg))];
  const manual = `Install them yourself (Debian/Ubuntu: sudo apt-get install -y ${pkgs.join(' ')}) and run again.`;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) {
    throw new Error(`Missing ${missing.map(what).join(', ')} and no apt-get here. ${manual}`);
  }
  const isRoot = process.getuid?.() === 0;
  const sudo = isRoot ? [] : findCommand('sudo') ? ['sudo', '-n'] : undefined;
  if (!sudo) throw new Error(`Missing ${pkgs.join(', ')}; installing needs root. ${manual}`);
  log(`Installing Debian packages: ${pkgs.join(' ')}`);
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...sudo, ...args];
    return spawnSync(cmd as string, rest, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status;
  };
  if (run(['apt-get', 'install', '-y', '--no-install-recommends', ...pkgs]) !== 0) {
    // The package lists may be missing or stale on a fresh machine.
    run(['apt-get', 'update']);
    if (run(['apt-get', 'install', '-y', '--no-install-recommends', ...pkgs]) !== 0) {
      throw new Error(`apt-get could not install ${pkgs.join(' ')}. ${manual}`);
    }
  }
  const still = missing.filter((m) => !present(m));
  if (still.length) throw new Error(`Installed ${pkgs.join(' ')} but ${still.map(what).join(', ')} is still missing.`);
}

/** The servers local runs and tests start (Debian's packages). */
export const SERVER_PACKAGES = [
  { command: 'nats-server', pkg: 'nats-server' },
  { command: 'redis-server', pkg: 'redis-server' },
];

/**
 * The browser the screen tests drive (playwright-core with Debian's Chromium, as its headless shell),
 * and a font for it.
 */
export const BROWSER_PACKAGES: DebianNeed[] = [
  { command: 'chromium-headless-shell', pkg: 'chromium-headless-shell' },
  { file: '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf', pkg: 'fonts-liberation' },
];

/**
 * The Chromium that screen tests and benchmarks drive: CHROMIUM_PATH, else Debian's headless shell
 * (`chromium-headless-shell`: the same Chromium, built without the browser's window and UI, as
 * Playwright drives headless by default), else Debian's `chromium` in its headless mode. The shell
 * took a third less CPU for the same journeys (ADR 0021).
 */
export function chromiumPath(): string {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium-headless-shell',
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
  ];
  const found = candidates.find((p): p is string => Boolean(p) && existsSync(p as string));
  if (!found) {
    throw new Error('Chromium is not installed: `npm test` installs it (apt-get install chromium-headless-shell)');
  }
  return found;
}
