/**
 * One backend per test worker for the tests whose environment is a browser's (happy-dom replaces
 * `fetch`, which the services use, so their services cannot run in the test file's process): a
 * process that stays up across the worker's test files and, on each file's request, starts the test
 * stack (auth-stack.ts) in that file's namespace behind a gateway on a port of its own; when the
 * file's process has ended (Vitest runs each file in a process of its own), it closes that stack and
 * removes the namespace. Started by spawnStack (spawn-stack.ts) the first time a worker needs it —
 * so the services' modules are loaded and compiled once per worker, not once per file (ADR 0021).
 *
 * Control, on 127.0.0.1 only: `POST /stacks` `{ ns, owner, mongoUrl, natsUrl, redisUrl,
 * frontendsDir?, linking? }` → `{ url }` (owner: the test file's process id; linking: the JSON of
 * StackOptions.linking). Prints `ready <port>` when it
 * listens; stops when the test run that started it (`--parent-pid`) is gone, or on SIGTERM.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanupNamespace, closeHttpServer } from '@nrad/infra/harness/cleanup';
import { namespaceFor } from '@nrad/infra/harness/namespace';
import { createAuthStack } from './auth-stack.ts';
import { processAlive } from './process-alive.ts';

interface Hosted {
  /** The test file's process: the stack is closed once it has ended. */
  owner: number;
  close(): Promise<void>;
}

const parentPid = Number(process.argv[process.argv.indexOf('--parent-pid') + 1]);
if (!Number.isInteger(parentPid) || parentPid <= 0) {
  console.error('stack-host: --parent-pid <pid of the test run> is required');
  process.exit(2);
}

const stacks = new Map<string, Hosted>();

async function body(req: IncomingMessage): Promise<Record<string, string | undefined>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string | undefined>;
}

async function start(spec: Record<string, string | undefined>): Promise<string> {
  const { ns, mongoUrl, natsUrl, redisUrl, frontendsDir } = spec;
  const owner = Number(spec.owner);
  if (!ns || !mongoUrl || !natsUrl || !redisUrl || !Number.isInteger(owner))
    throw new Error('ns, owner, mongoUrl, natsUrl and redisUrl are required');
  if (stacks.has(ns)) throw new Error(`a stack already runs in namespace ${ns}`);
  const t = namespaceFor(ns, { mongoUrl, natsUrl, redisUrl });
  const stack = await createAuthStack(t, spec.linking ? { linking: JSON.parse(spec.linking) } : {});
  const { server } = stack.gateway({ TRUST_PROXY: 'false', ...(frontendsDir ? { FRONTENDS_DIR: frontendsDir } : {}) });
  const http = createServer(server);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  stacks.set(ns, {
    owner,
    close: async () => {
      await closeHttpServer(http);
      await stack.close();
      await cleanupNamespace(t, ns);
    },
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

/** Closes the stacks whose test file has ended, one at a time. */
let sweeping = false;
async function sweep(): Promise<void> {
  if (sweeping) return;
  sweeping = true;
  try {
    for (const [ns, hosted] of stacks) {
      if (processAlive(hosted.owner)) continue;
      stacks.delete(ns);
      await hosted.close().catch((err: unknown) => console.error(`stack-host: closing ${ns}:`, err));
    }
  } finally {
    sweeping = false;
  }
}

async function control(req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    if (req.method === 'POST' && req.url === '/stacks') {
      const url = await start(await body(req));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url }));
      return;
    }
    res.writeHead(404).end();
  } catch (err) {
    res
      .writeHead(500, { 'content-type': 'text/plain' })
      .end(err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
}

const controlServer = createServer((req, res) => void control(req, res));
await new Promise<void>((resolve) => controlServer.listen(0, '127.0.0.1', resolve));
process.stdout.write(`ready ${(controlServer.address() as AddressInfo).port}\n`);

// Every quarter second: the stacks of ended test files are closed; once the run that started this
// host is gone, so is the host (its throwaway servers are gone with the run).
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {
  if (!processAlive(parentPid)) process.exit(0);
  void sweep();
}, 250);
