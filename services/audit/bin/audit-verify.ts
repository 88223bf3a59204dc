// `npm run audit:verify`: walks the audit trail's hash chain and says whether it holds (exit 0) or
// names the first broken entry (exit 1). It only reads, so it runs beside a running system. The
// database is found as stats:rebuild finds it: MONGO_URL (and MONGO_DB) when set; otherwise the
// data of `npm start` (NRAD_DATA_DIR, default .data/): the FerretDB npm start runs on it when it
// runs, else an embedded FerretDB started on it for the check and stopped after.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { dataDir, ensureFerretdbBinary, startFerretdb } from '@nrad/infra';
import { VERIFY_USAGE, verifyCommand } from '../src/verify-command.ts';

/** The process id of a FerretDB serving `store` (found by its command line in /proc; Linux). */
function ferretdbOn(store: string): number | undefined {
  if (!existsSync('/proc')) return undefined;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (args.some((a) => a === `-sqlite-dir=${store}` || a === `--sqlite-dir=${store}`)) return Number(pid);
  }
  return undefined;
}

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

const env = { ...process.env };
const args = process.argv.slice(2);
const stops: Array<() => Promise<unknown>> = [];
try {
  if (args.length > 0) {
    console.log(VERIFY_USAGE);
    process.exit(args.every((a) => a === '--help' || a === '-h') ? 0 : 2);
  }
  if (!env.MONGO_URL) {
    const dir = dataDir(env);
    const store = path.join(dir, 'ferretdb');
    if (!existsSync(store)) {
      console.error(`No data at ${dir}: nothing to verify (set NRAD_DATA_DIR or MONGO_URL).`);
      process.exit(1);
    }
    const pid = ferretdbOn(store);
    if (pid !== undefined) {
      const port = listeningPorts(pid)[0];
      const url = port ? `mongodb://127.0.0.1:${port}/` : lastReadyUrl(path.join(dir, 'logs', 'ferretdb.log'));
      if (!url) {
        console.error(`FerretDB (process ${pid}) serves ${dir}, but its port was not found: set MONGO_URL.`);
        process.exit(1);
      }
      console.error(`Reading the running system's FerretDB on ${dir} (${url})...`);
      env.MONGO_URL = url;
    } else {
      console.error(`Starting the embedded FerretDB on ${dir} (no system runs on it)...`);
      ensureFerretdbBinary();
      const mongo = await startFerretdb({ sqliteDir: store, logFile: path.join(dir, 'logs', 'ferretdb-verify.log') });
      stops.push(() => mongo.process.stop());
      env.MONGO_URL = mongo.url;
    }
  }
  process.exitCode = await verifyCommand(env, [], (line) => console.log(line));
} finally {
  for (const stop of stops.reverse()) await stop();
}
