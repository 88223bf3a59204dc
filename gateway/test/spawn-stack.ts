import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newNamespace } from '@nrad/infra/harness';
import type { StackOptions } from './auth-stack.ts';
import { processAlive } from './process-alive.ts';

/** This worker's host: one per test run and worker (Vitest's pool id), found through a file. */
const run = process.ppid;
const worker = process.env.VITEST_POOL_ID ?? '0';
const hostFile = path.join(os.tmpdir(), `nrad-stack-host-${run}-${worker}.json`);
const hostLog = path.join(os.tmpdir(), `nrad-stack-host-${run}-${worker}.log`);

/** A call to the host on 127.0.0.1 (node:http: in a browser environment `fetch` is the browser's). */
function call(port: number, method: string, route: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      method,
      path: route,
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The port of this worker's stack host, started (stack-host.ts) when it is not running yet. */
async function hostPort(): Promise<number> {
  if (existsSync(hostFile)) {
    const { port, pid } = JSON.parse(readFileSync(hostFile, 'utf8')) as { port: number; pid: number };
    if (processAlive(pid)) return port;
  }
  const child = spawn(
    process.execPath,
    // A string, not a URL object: in a browser environment `URL` is the browser's.
    [
      '--import',
      'tsx',
      path.join(path.dirname(fileURLToPath(import.meta.url)), 'stack-host.ts'),
      '--parent-pid',
      String(run),
    ],
    // Its own process group: it outlives this test file's process, for the worker's next files.
    { detached: true, stdio: ['ignore', 'pipe', openSync(hostLog, 'a')] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\d+)/.exec(out);
      if (ready?.[1]) resolve(Number(ready[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`the stack host stopped (code ${code}) before it was ready; see ${hostLog}`)),
    );
  });
  child.stdout?.destroy();
  child.removeAllListeners('exit');
  child.unref();
  writeFileSync(hostFile, JSON.stringify({ port, pid: child.pid }));
  return port;
}

/**
 * The test stack (auth-stack.ts) in a namespace of this test file's, for tests running in a
 * browser environment: started by this worker's stack host (a process that serves the worker's
 * files one after another, ADR 0021), which closes it and removes the namespace once this file's
 * process has ended. Resolves with the gateway's URL.
 */
export async function spawnStack(options: { frontendsDir?: string } & StackOptions = {}): Promise<{ url: string }> {
  const t = newNamespace();
  const port = await hostPort();
  const started = await call(port, 'POST', '/stacks', {
    ns: t.ns,
    owner: process.pid,
    mongoUrl: t.mongoUrl,
    natsUrl: t.natsUrl,
    redisUrl: t.redisUrl,
    ...(options.frontendsDir ? { frontendsDir: options.frontendsDir } : {}),
    ...(options.linking ? { linking: JSON.stringify(options.linking) } : {}),
  });
  if (started.status !== 200) throw new Error(`the stack host could not start a stack: ${started.text}`);
  return { url: (JSON.parse(started.text) as { url: string }).url };
}
