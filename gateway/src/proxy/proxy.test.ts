import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@nrad/service-kit';
import Koa from 'koa';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy } from './proxy.ts';

/**
 * A service that closes a kept-alive connection just as its second request arrives, as a service
 * whose idle timeout (5 s) ends when the gateway's agent sends on the connection: nothing answered.
 */
let served: Array<{ method: string; socket: number }> = [];
let upstream: http.Server;
let target: string;
const proxy = createProxy({ timeoutMs: 5_000, logger: createLogger({ name: 'proxy-test', level: 'silent' }) });
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

beforeAll(async () => {
  const sockets = new Map<object, { id: number; requests: number }>();
  upstream = http.createServer((req, res) => {
    let socket = sockets.get(req.socket);
    if (!socket) {
      socket = { id: sockets.size + 1, requests: 0 };
      sockets.set(req.socket, socket);
    }
    socket.requests++;
    req.resume();
    if (socket.requests > 1) {
      req.socket.destroy(); // the idle connection closed under the request
      return;
    }
    served.push({ method: req.method ?? '', socket: socket.id });
    res.setHeader('content-type', 'text/plain');
    res.end('ok');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('a kept-alive connection the service closed', () => {
  it('a read is sent again on a new connection; a write is not (it may have been done)', async () => {
    served = [];
    expect((await request(gateway).get('/api/x')).status).toBe(200);
    // The agent reuses the first connection, which the service closes: the read is sent again.
    const again = await request(gateway).get('/api/x?second');
    expect(again.status).toBe(200);
    expect(again.text).toBe('ok');
    expect(served).toEqual([
      { method: 'GET', socket: 1 },
      { method: 'GET', socket: 2 },
    ]);
    // A write on a reused connection that closes is not repeated: the gateway answers 503.
    const write = await request(gateway).post('/api/x').send({ a: 1 });
    expect(write.status).toBe(503);
    expect(served).toHaveLength(2);
  });
});
