/**
 * Runs the test stack (auth-stack.ts) in a process of its own, for tests whose environment is a
 * browser's (happy-dom replaces `fetch`, which the services use). Started by spawnStack with the
 * test file's namespace and the run's infrastructure in the environment; prints `ready <url>` of
 * a gateway serving FRONTENDS_DIR, and stops when its input closes or on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { namespaceFor } from '@nrad/infra/harness/namespace';
import { createAuthStack } from './auth-stack.ts';

const env = process.env;
const ns = env.NRAD_TEST_NS;
if (!ns || !env.MONGO_URL || !env.NATS_URL || !env.REDIS_URL) {
  console.error('serve-stack: NRAD_TEST_NS, MONGO_URL, NATS_URL and REDIS_URL are required');
  process.exit(2);
}
const t = namespaceFor(ns, { mongoUrl: env.MONGO_URL, natsUrl: env.NATS_URL, redisUrl: env.REDIS_URL });
const stack = await createAuthStack(t);
const { server } = stack.gateway({
  TRUST_PROXY: 'false',
  ...(env.FRONTENDS_DIR ? { FRONTENDS_DIR: env.FRONTENDS_DIR } : {}),
});
const http = createServer(server);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
process.stdout.write(`ready http://127.0.0.1:${(http.address() as AddressInfo).port}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  http.close();
  await stack.close();
  process.exit(0);
}
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
