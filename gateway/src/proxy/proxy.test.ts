import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@nrad/service-kit';
import Koa from 'koa';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, IDLE_CONNECTION_MS } from './proxy.ts';

/**
 * A service as service-kit's server keeps connections (idle 5 s), counting the connections its
 * requests came on; `?slow=ms` answers after that long.
 */
const connections = new Map<object, number>();
const seen: number[] = [];
let upstream: http.Server;
let target: string;
const proxy = createProxy({ timeoutMs: 10_000, logger: createLogger({ name: 'proxy-test', level: 'silent' }) });
const app = new Koa();
app.use(async (ctx) => {
  ctx.state.requestId = 'r';
  try {
    await proxy.forward(ctx, target, 'token');
  } catch {
    ctx.status = 503;
  }
});
const gateway = app.callback();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    if (!connections.has(req.socket)) connections.set(req.socket, connections.size + 1);
    seen.push(connections.get(req.socket)!);
    req.resume();
    const slow = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('slow') ?? 0);
    setTimeout(() => {
      res.setHeader('content-type', 'text/plain');
      res.end('ok');
    }, slow);
  });
  upstream.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('connections to a service', () => {
  it('are reused while busy and closed by the gateway before the service would close them', async () => {
    seen.length = 0;
    expect((await request(gateway).get('/api/x')).status).toBe(200);
    expect((await request(gateway).get('/api/x')).status).toBe(200);
    // Idle past the gateway's timeout, well before the service's 5 s: the gateway has closed it.
    await sleep(IDLE_CONNECTION_MS + 500);
    expect((await request(gateway).get('/api/x')).status).toBe(200);
    expect((await request(gateway).post('/api/x').send({ a: 1 })).status).toBe(200);
    expect(seen).toEqual([1, 1, 2, 2]);
  });

  it('an answer slower than the idle timeout is waited for (the timeout is for idle connections)', async () => {
    const slow = await request(gateway).get(`/api/x?slow=${IDLE_CONNECTION_MS + 1_000}`);
    expect(slow.status).toBe(200);
    expect(slow.text).toBe('ok');
  });
});
