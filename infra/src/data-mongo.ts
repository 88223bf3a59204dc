// The database of `npm start`'s data for a command that reads it beside a running system
// (audit:verify, links:audit): MONGO_URL when set; otherwise the FerretDB npm start runs on
// NRAD_DATA_DIR (default .data/) when it runs, else an embedded FerretDB started on it for the
// command and stopped after.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { ensureFerretdbBinary, startFerretdb } from './ferretdb.ts';
import { dataDir } from './paths.ts';

/**
 * A process one of whose command-line arguments `serves` (found in /proc; Linux, elsewhere none):
 * a server already running on a data directory, which a command must read through or leave alone.
 */
export function processWith(serves: (arg: string) => boolean): { pid: number; command: string } | undefined {
  if (!existsSync('/proc')) return undefined;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (args.some(serves)) return { pid: Number(pid), command: args[0] ?? '' };
  }
  return undefined;
}

/** The process id of a FerretDB serving `store`. */
const ferretdbOn = (store: string) =>
  processWith((a) => a === `-sqlite-dir=${store}` || a === `--sqlite-dir=${store}`)?.pid;

/** The TCP ports process `pid` listens on: its sockets (/proc/<pid>/fd) in the LISTEN state of /proc/<pid>/net/tcp*. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m?.[1]) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return []; // not ours to read
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode (10th); 0A is LISTEN.
      if (f[3] === '0A' && f[9] && inodes.has(f[9])) ports.push(Number.parseInt(f[1]?.split(':')[1] ?? '', 16));
    }
  }
  return ports.filter((p) => Number.isInteger(p) && p > 0);
}

/** The URL the FerretDB of the last start on this data directory printed (its log), if any. */
function lastReadyUrl(logFile: string): string | undefined {
  if (!existsSync(logFile)) return undefined;
  const urls = [...readFileSync(logFile, 'utf8').matchAll(/^ready (mongodb:\/\/\S+)/gm)].map((m) => m[1]);
  return urls.at(-1);
}

/**
 * Where a command reads npm start's data: `{url}` to connect to and `stop()` for what it started.
 * Prints what it does on stderr; throws with a message saying what is missing.
 */
export async function dataMongo(
  env: Record<string, string | undefined>,
  purpose: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  if (env.MONGO_URL) return { url: env.MONGO_URL, stop: async () => {} };
  const dir = dataDir(env);
  const store = path.join(dir, 'ferretdb');
  if (!existsSync(store)) throw new Error(`No data at ${dir}: nothing to ${purpose} (set NRAD_DATA_DIR or MONGO_URL).`);
  const pid = ferretdbOn(store);
  if (pid !== undefined) {
    const port = listeningPorts(pid)[0];
    const url = port ? `mongodb://127.0.0.1:${port}/` : lastReadyUrl(path.join(dir, 'logs', 'ferretdb.log'));
    if (!url) throw new Error(`FerretDB (process ${pid}) serves ${dir}, but its port was not found: set MONGO_URL.`);
    console.error(`Reading the running system's FerretDB on ${dir} (${url})...`);
    return { url, stop: async () => {} };
  }
  console.error(`Starting the embedded FerretDB on ${dir} (no system runs on it)...`);
  ensureFerretdbBinary();
  const logFile = path.join(dir, 'logs', `ferretdb-${purpose.replace(/\W+/g, '-')}.log`);
  const mongo = await startFerretdb({ sqliteDir: store, logFile });
  return { url: mongo.url, stop: () => mongo.process.stop() };
}
