import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { isListening, waitUntil } from './ports.ts';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited (for whatever reason). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (`kill -9`: no shutdown of its own); resolves once it is gone. */
  kill(): Promise<void>;
  /** The last lines it wrote (for error messages). */
  tail(): string;
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** Kills every managed child when this process exits, so nothing outlives a test run or Ctrl-C. */
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const p of live) p.child.kill('SIGKILL');
  });
}

/**
 * Starts a child process whose output goes to `logFile` (and is remembered for error messages).
 * `onLine` sees each stdout line, e.g. to learn a port the child printed.
 */
export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; logFile?: string; cwd?: string; onLine?: (line: string) => void } = {},
): ManagedProcess {
  installExitHook();
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const recent: string[] = [];
  let log: NodeJS.WritableStream | undefined;
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    log = createWriteStream(options.logFile, { flags: 'a' });
  }
  const collect = (stream: NodeJS.ReadableStream, lineHook?: (line: string) => void) => {
    let buffer = '';
    stream.on('data', (chunk: Buffer) => {
      log?.write(chunk);
      buffer += chunk.toString('utf8');
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        recent.push(line);
        if (recent.length > 40) recent.shift();
        lineHook?.(line);
        nl = buffer.indexOf('\n');
      }
    });
  };
  if (child.stdout) collect(child.stdout, options.onLine);
  if (child.stderr) collect(child.stderr);
  // The log ends once the child's output is all read ('close'), which may come after 'exit': a
  // write after the end would fail.
  child.once('close', () => log?.end());

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => {
      recent.push(String(err));
      resolve(null);
    });
  });
  const managed: ManagedProcess = {
    name,
    child,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(managed);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      live.delete(managed);
    },
    tail: () => recent.join('\n'),
  };
  live.add(managed);
  void exited.then(() => live.delete(managed));
  return managed;
}

/**
 * Resolves once `check` says `proc` is ready; if the process exits first or `timeoutMs` passes,
 * stops it and fails with its last output.
 */
export async function waitForReady(
  proc: ManagedProcess,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
) {
  try {
    await Promise.race([
      waitUntil(what, check, timeoutMs),
      proc.exited.then((code) => {
        throw new Error(`exited with code ${code}`);
      }),
    ]);
  } catch (err) {
    await proc.stop(1000);
    throw new Error(`${what} did not start (${(err as Error).message}). Its last output:\n${proc.tail()}`);
  }
}

/** `waitForReady` for servers whose readiness is accepting connections on `port`. */
export function waitForListening(proc: ManagedProcess, port: number, what: string, timeoutMs = 20_000) {
  return waitForReady(proc, `${what} on port ${port}`, () => isListening(port), timeoutMs);
}
