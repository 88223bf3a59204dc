import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuditEvent, ERROR_CODES, QUEUES_BOARD_PATH } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { GRANT_HEADER, signOnBehalf, verifyIdentity } from '@nrad/service-kit';
import { testIdentityKeys, testSigner } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_PATH, pathProblem } from '../src/request-checks.ts';
import { ROUTES } from '../src/routes.ts';
import { ADMIN, cookieJar, gatewayAuditEvents, nextIp, signIn, startAuthStack } from './stack.ts';

/** Traversal forms: each would reach another path if anything after the gateway resolved it again. */
const TRAVERSALS = [
  '..\\..\\metrics',
  '..\\..\\readyz',
  '..%5c..%5cmetrics',
  '..%5C..%5Cmetrics',
  '../../metrics',
  './../../readyz',
  '%2e%2e/%2e%2e/metrics',
  '%2E%2E%2F%2E%2E%2Fmetrics',
  '..%2f..%2fmetrics',
  '.%2e/.%2e/metrics',
  '%2e./%2e./internal/users',
  'x%00',
  'x%00/../../metrics',
  '%ff%fe%2f..',
  '%',
  '%zz',
  '/../metrics',
  '\\metrics',
  '%5cmetrics',
  '%09metrics',
  // Look-alikes that are no traversal: forwarded exactly as sent.
  '..;/metrics',
  '%252e%252e%252fmetrics',
  '...',
  'metrics..',
];

describe('pathProblem', () => {
  it('refuses what another parser could read as another path, and nothing a route needs', () => {
    for (const ok of [
      '/',
      '/api/records/6650f0c8a1b2c3d4e5f60718',
      '/api/records/search?suspectName=..%2F..',
      '/api/records/',
      '/remotes/records/remoteEntry.js',
      '/api/records/O%27Brien',
      '/api/records/%252e%252e',
      '/api/records/a..b',
      '/api/records/...',
    ]) {
      expect(pathProblem(ok), ok).toBeUndefined();
    }
    const refused: Array<[string, string]> = [
      ['http://127.0.0.1:1/api/records/x', 'not a path'],
      ['*', 'not a path'],
      ['/api/records/..\\..\\metrics', 'a backslash'],
      ['/api/records/../../metrics', 'a dot segment'],
      ['/api/records/./x', 'a dot segment'],
      ['/api/records/%2E%2e', 'a dot segment'],
      ['/api/records/.%2e', 'a dot segment'],
      ['/api/records/..%2fmetrics', 'an encoded slash'],
      ['/api/records/..%5Cmetrics', 'an encoded slash'],
      ['/api//records', 'an empty segment'],
      ['//evil.example/api/records', 'an empty segment'],
      ['/api/records/x%00', 'a control character'],
      ['/api/records/x\u0000', 'a control character'],
      ['/api/records/%', 'a malformed escape'],
      ['/api/records/%ff', 'a malformed escape'],
    ];
    for (const [target, problem] of refused) expect(pathProblem(target), target).toBe(problem);
  });
});

describe('a gateway that forwards only what it routes', () => {
  let stack: Awaited<ReturnType<typeof startAuthStack>>;
  /** Every path a service received, in the order received, and the grants that came with them. */
  const received: string[] = [];
  const grants = new Map<string, string | undefined>();
  let echo: http.Server;
  let gateway: http.Server;
  let gatewayPort: number;
  let gatewayApp: ReturnType<typeof stack.gateway>['server'];
  let cookie: string;
  let ip: string;

  beforeAll(async () => {
    stack = await startAuthStack();
    echo = http.createServer((req, res) => {
      received.push(req.url ?? '');
      grants.set(`${req.method} ${req.url}`, req.headers[GRANT_HEADER] as string | undefined);
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/records/busybusybusybusybusybusy') {
        // A service whose store is busy: 503 with Retry-After, and a body the gateway never passes on.
        res.writeHead(503, { 'retry-after': '5' });
        res.end(JSON.stringify({ message: 'SQLITE_BUSY inside', code: 'SERVICE_UNAVAILABLE' }));
        return;
      }
      res.end(JSON.stringify({ path: req.url }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    // Every service but auth (which signs in) is the echo: what it receives is what the gateway sent.
    const gw = stack.gateway({
      RECORDS_URL: at,
      LINKING_URL: at,
      STATS_URL: at,
      INGEST_URL: at,
      REPORT_URL: at,
      OPS_URL: at,
      AUDIT_URL: at,
    });
    gatewayApp = gw.server;
    gateway = http.createServer(gw.server);
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    gatewayPort = (gateway.address() as AddressInfo).port;
    // ADMIN: every route and the queue board are forwarded for them.
    ip = nextIp();
    const login = await request(gw.server).post('/api/auth/login').set('x-forwarded-for', ip).send(ADMIN).expect(200);
    cookie = cookieJar(login);
  });

  afterAll(async () => {
    await new Promise((resolve) => gateway?.close(resolve));
    await new Promise((resolve) => echo?.close(resolve));
  });

  /** A raw request: the target goes on the request line exactly as written (no client resolves it). */
  function send(
    method: string,
    target: string,
    from = ip,
    extra: Record<string, string> = {},
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: gatewayPort,
        method,
        path: target,
        headers: { cookie, 'x-forwarded-for': from, ...extra },
      });
      req.once('error', reject);
      req.once('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.end();
    });
  }

  it('refuses every traversal form on every route with 400, and forwards nothing but the path it matched', async () => {
    const sent = new Set<string>();
    const templates = [...ROUTES.map((r) => r.path), `${QUEUES_BOARD_PATH}/api/queues/{queue}`, '/{file}'];
    for (const template of templates) {
      const params = template.match(/\{[^}]+\}/g) ?? [];
      const base = template.replace(/\{[^}]+\}/g, 'x');
      // Each form after the route, and in place of each of its parameters.
      const targets = TRAVERSALS.flatMap((t) => [
        `${base}/${t}`,
        ...params.map((p) => template.replace(p, t).replace(/\{[^}]+\}/g, 'x')),
      ]);
      for (const target of targets) {
        const res = await send('GET', target);
        sent.add(target);
        if (pathProblem(target)) {
          expect(res.status, target).toBe(400);
          expect(JSON.parse(res.body)).toEqual({ message: INVALID_PATH, code: ERROR_CODES.validation });
        }
      }
    }
    // What reached a service is a path that was sent, unchanged, under /api or the queue board.
    expect(received.length).toBeGreaterThan(0);
    for (const path of received) {
      expect(sent.has(path), path).toBe(true);
      expect(pathProblem(path), path).toBeUndefined();
      expect(path.startsWith('/api/') || path.startsWith(`${QUEUES_BOARD_PATH}/`), path).toBe(true);
    }
    for (const internal of ['/metrics', '/readyz', '/healthz', '/internal/']) {
      expect(received.some((p) => p.startsWith(internal))).toBe(false);
    }
  });

  it('never forwards to the host of an absolute request target, and forwards a path with its query as sent', async () => {
    const before = received.length;
    const absolute = await send('GET', `http://127.0.0.1:${gatewayPort}/api/records/6650f0c8a1b2c3d4e5f60718`);
    expect(absolute.status).toBe(400);
    expect(received.length).toBe(before);
    const fine = await send('GET', '/api/records/search?suspectName=..%2F..%5Cmetrics&page=1');
    expect(fine.status).toBe(200);
    expect(JSON.parse(fine.body)).toEqual({ path: '/api/records/search?suspectName=..%2F..%5Cmetrics&page=1' });
  });

  it('answers a method NRAD does not take 501 and a compressed body 415, before anything is forwarded', async () => {
    const before = received.length;
    for (const method of ['PROPFIND', 'MKCOL', 'PURGE', 'SEARCH', 'TRACE']) {
      const res = await send(method, '/api/records/6650f0c8a1b2c3d4e5f60718');
      expect(res.status, method).toBe(501);
      expect(JSON.parse(res.body)).toEqual({
        message: `The method ${method} is not supported.`,
        code: ERROR_CODES.notImplemented,
      });
    }
    for (const coding of ['br', 'gzip', 'deflate', 'BR', 'gzip, identity']) {
      const res = await send('GET', '/api/records/6650f0c8a1b2c3d4e5f60718', ip, { 'content-encoding': coding });
      expect(res.status, coding).toBe(415);
      expect(JSON.parse(res.body).code).toBe(ERROR_CODES.unsupportedMediaType);
    }
    expect(received.length).toBe(before);
    const plain = await send('GET', '/api/records/6650f0c8a1b2c3d4e5f60718', ip, { 'content-encoding': 'identity' });
    expect(plain.status).toBe(200);
  });

  it('sends a grant for the user only where the route asks for one, never a client’s', async () => {
    const forged = 'eyJhbGciOiJub25lIn0.e30.';
    expect((await send('GET', '/api/records/6650f0c8a1b2c3d4e5f60718', ip, { [GRANT_HEADER]: forged })).status).toBe(
      200,
    );
    expect(grants.get('GET /api/records/6650f0c8a1b2c3d4e5f60718')).toBeUndefined();
    const res = await send('POST', '/api/generate-report', ip, { [GRANT_HEADER]: forged });
    expect(res.status, res.body).toBe(200);
    const grant = grants.get('POST /api/generate-report');
    expect(grant).toBeDefined();
    expect(grant).not.toBe(forged);
    // The report service may act for the user with it; no other service may.
    const keys = testIdentityKeys();
    const asReport = await verifyIdentity(await signOnBehalf(grant as string, testSigner('report')), keys);
    expect(asReport).toMatchObject({ caller: 'report', identity: { kind: 'user', organization: 'ADMIN' } });
    await expect(verifyIdentity(await signOnBehalf(grant as string, testSigner('ingest')), keys)).rejects.toThrow();
  });

  it('records its own 403s: the queue board for an agency user, a write from another site', async () => {
    const fia = await signIn(gatewayApp, { organization: 'FIA' });
    const from = nextIp();
    const board = await fia.agent.get(`${QUEUES_BOARD_PATH}/api/queues`).set('x-forwarded-for', from).expect(403);
    expect(board.body.message).toBe('Access denied. Admin privileges required.');
    await fia.agent
      .post('/api/records')
      .set('x-forwarded-for', from)
      .set('origin', 'https://evil.example')
      .send({})
      .expect(403);
    let mine: AuditEvent[] = [];
    await waitUntil('both refusals in the audit stream', async () => {
      mine = (await gatewayAuditEvents(stack)).filter((e) => e.action === 'access.refused' && e.clientAddress === from);
      return mine.length === 2;
    });
    expect(mine.map((e) => [e.userId, e.organization, e.detail?.method, e.detail?.path, e.detail?.reason])).toEqual([
      [fia.user.id, 'FIA', 'GET', `${QUEUES_BOARD_PATH}/api/queues`, 'Access denied. Admin privileges required.'],
      [null, null, 'POST', '/api/records', 'Cross-site request refused'],
    ]);
  });

  it('passes on a busy service’s Retry-After with its own 503, nothing of the service’s body', async () => {
    const res = await send('GET', '/api/records/busybusybusybusybusybusy');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({
      message: 'The service is temporarily unavailable. Please try again shortly.',
      code: ERROR_CODES.unavailable,
    });
    expect(res.body).not.toContain('SQLITE');
    const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: gatewayPort,
        path: '/api/records/busybusybusybusybusybusy',
        headers: { cookie, 'x-forwarded-for': ip },
      });
      req.once('response', resolve).once('error', reject).end();
    });
    head.resume();
    expect(head.headers['retry-after']).toBe('5');
  });

  it('records each refusal in the audit trail with what was tried', async () => {
    // The traversals above came from one address, over the number audited an hour (only logged).
    const from = nextIp();
    const target = '/api/records/..%5c..%5cmetrics?audited=1';
    expect((await send('GET', target, from)).status).toBe(400);
    let mine: AuditEvent[] = [];
    await waitUntil('the refusal in the audit stream', async () => {
      mine = (await gatewayAuditEvents(stack)).filter(
        (e) => e.action === 'access.refused' && e.detail?.path === target,
      );
      return mine.length > 0;
    });
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      userId: null,
      clientAddress: from,
      detail: { reason: 'path', problem: 'an encoded slash', method: 'GET', path: target },
    });
    const encoded = '/api/records/6650f0c8a1b2c3d4e5f60718?audited=2';
    expect((await send('PROPFIND', encoded, from)).status).toBe(501);
    expect((await send('GET', encoded, from, { 'content-encoding': 'br' })).status).toBe(415);
    await waitUntil('the method and the coding in the audit stream', async () => {
      mine = (await gatewayAuditEvents(stack)).filter((e) => e.detail?.path === encoded);
      return mine.length === 2;
    });
    expect(mine.map((e) => [e.action, e.detail?.reason, e.detail?.problem, e.detail?.method])).toEqual([
      ['access.refused', 'method', 'unknown method', 'PROPFIND'],
      ['access.refused', 'content-encoding', 'br', 'GET'],
    ]);
  });
});
