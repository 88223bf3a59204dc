import { brotliCompressSync, gzipSync } from 'node:zlib';
import Router from '@koa/router';
import { ERROR_CODES, IDENTITY_HEADER, REQUEST_ID_HEADER } from '@nrad/contracts';
import { SignJWT } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServiceApp, type ServiceState } from './app.ts';
import { conflict, parse } from './errors.ts';
import { adminOf, newIdentityKeyPair, parseSigner, signIdentity, userOf } from './identity.ts';
import { createLogger } from './logger.ts';
import { TEST_GATEWAY_SIGNER, testIdentityKeys } from './test-identity.ts';

const USER = { kind: 'user', userId: 'a'.repeat(24), name: 'Ann', organization: 'BPS', role: 'Analyst' } as const;

function makeApp(readyOk = true) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(
    { name: 'test', level: 'info' },
    { write: (s: string) => void lines.push(JSON.parse(s)) },
  );
  const app = createServiceApp({
    name: 'test',
    logger,
    identityKeys: testIdentityKeys(),
    readiness: {
      db: async () => {
        if (!readyOk) throw new Error('down');
      },
    },
    jsonLimit: '1kb',
  });
  const router = new Router<ServiceState>();
  router.post('/api/echo', (ctx) => {
    ctx.body = parse(z.strictObject({ name: z.string() }), ctx.request.body);
  });
  router.get('/api/me', (ctx) => {
    ctx.body = userOf(ctx.state);
  });
  router.get('/api/admin-only', (ctx) => {
    adminOf(ctx.state);
    ctx.body = { ok: true };
  });
  router.get('/api/conflict', () => {
    throw conflict('Already there');
  });
  router.get('/api/boom', () => {
    throw new Error('secret internal detail at /srv/db');
  });
  router.get('/api/busy', () => {
    // As FerretDB answers when SQLite stayed locked past its busy timeout.
    throw Object.assign(new Error('(InternalError) database is locked (5) (SQLITE_BUSY)'), {
      name: 'MongoServerError',
      code: 1,
    });
  });
  router.get('/api/unreachable', () => {
    throw Object.assign(new Error('Server selection timed out after 30000 ms'), { name: 'MongoServerSelectionError' });
  });
  router.get('/api/conflict-write', () => {
    throw Object.assign(new Error('Write conflict during plan execution'), { name: 'MongoServerError', code: 112 });
  });
  router.get('/api/log', (ctx) => {
    logger.info('inside the handler');
    ctx.body = {};
  });
  app.use(router.routes()).use(router.allowedMethods());
  return { server: app.callback(), lines };
}

const auth = async (identity: Parameters<typeof signIdentity>[0] = USER) => ({
  [IDENTITY_HEADER]: await signIdentity(identity, TEST_GATEWAY_SIGNER),
});

describe('service app', () => {
  it('answers health, readiness and metrics without identity', async () => {
    const { server } = makeApp();
    await request(server).get('/healthz').expect(200, { status: 'ok' });
    await request(server)
      .get('/readyz')
      .expect(200, { ready: true, checks: { db: 'up' }, version: 'source' });
    const metrics = await request(server).get('/metrics').expect(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    await request(makeApp(false).server)
      .get('/readyz')
      .expect(503, { ready: false, checks: { db: 'down' }, version: 'source' });
  });

  it('refuses requests without a valid identity token', async () => {
    const { server } = makeApp();
    const none = await request(server).get('/api/me').expect(401);
    expect(none.body).toEqual({ message: 'Authentication required', code: ERROR_CODES.unauthenticated });
    await request(server).get('/api/me').set(IDENTITY_HEADER, 'garbage').expect(401);
    const wrongKey = await signIdentity(USER, parseSigner('gateway', newIdentityKeyPair().privateKey));
    await request(server).get('/api/me').set(IDENTITY_HEADER, wrongKey).expect(401);
    const expired = await new SignJWT({ id: USER })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('gateway')
      .setAudience('nrad-services')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(TEST_GATEWAY_SIGNER.key);
    await request(server).get('/api/me').set(IDENTITY_HEADER, expired).expect(401);
    // A body from an unverified caller is not even parsed.
    await request(server).post('/api/echo').set('content-type', 'application/json').send('{bad').expect(401);
  });

  it('passes the verified identity to handlers and enforces ADMIN', async () => {
    const { server } = makeApp();
    const me = await request(server)
      .get('/api/me')
      .set(await auth())
      .expect(200);
    expect(me.body).toEqual(USER);
    const forbidden = await request(server)
      .get('/api/admin-only')
      .set(await auth())
      .expect(403);
    expect(forbidden.body.code).toBe(ERROR_CODES.forbidden);
    await request(server)
      .get('/api/admin-only')
      .set(await auth({ ...USER, organization: 'ADMIN' }))
      .expect(200);
    await request(server)
      .get('/api/me')
      .set(await auth({ kind: 'anonymous' }))
      .expect(401);
  });

  it('refuses a body holding a prototype key or a $-key at any level, naming where', async () => {
    const { server } = makeApp();
    const h = await auth();
    const cases: Array<[string, string]> = [
      ['{"name":"x","__proto__":{"admin":true}}', 'body: must not hold the key "__proto__"'],
      ['{"name":{"constructor":{"prototype":{"x":1}}}}', 'name: must not hold the key "constructor"'],
      ['{"name":{"$gt":""}}', 'name: must not hold the key "$gt"'],
      ['{"name":"x","list":[{"a":1},{"$where":"1"}]}', 'list.1: must not hold the key "$where"'],
      ['[{"prototype":1}]', '0: must not hold the key "prototype"'],
    ];
    for (const [body, message] of cases) {
      const res = await request(server).post('/api/echo').set(h).set('content-type', 'application/json').send(body);
      expect(res.status, `${body} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body, body).toEqual({ message, code: ERROR_CODES.validation });
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    // A value that merely looks like one is fine.
    await request(server).post('/api/echo').set(h).send({ name: '$gt __proto__' }).expect(200);
  });

  it('maps bad bodies to clear 4xx errors', async () => {
    const { server } = makeApp();
    const h = await auth();
    const malformed = await request(server)
      .post('/api/echo')
      .set(h)
      .set('content-type', 'application/json')
      .send('{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: 'Request body is not valid JSON', code: ERROR_CODES.malformedJson });

    const big = await request(server)
      .post('/api/echo')
      .set(h)
      .send({ name: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe(ERROR_CODES.payloadTooLarge);

    const text = await request(server).post('/api/echo').set(h).set('content-type', 'text/plain').send('name=x');
    expect(text.status).toBe(415);
    expect(text.body.code).toBe(ERROR_CODES.unsupportedMediaType);

    const invalid = await request(server).post('/api/echo').set(h).send({ name: 5, extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe(ERROR_CODES.validation);
    expect(invalid.body.message).toContain('name');
    expect(invalid.body.message).toContain('extra');

    await request(server).post('/api/echo').set(h).send({ name: 'ok' }).expect(200, { name: 'ok' });

    // A compressed body is refused before anything inflates it: valid or broken, whatever the coding.
    const json = Buffer.from(JSON.stringify({ name: 'ok' }));
    for (const [coding, body] of [
      ['gzip', gzipSync(json)],
      ['br', brotliCompressSync(json)],
      ['br', Buffer.from('not brotli at all')],
      ['deflate, gzip', gzipSync(json)],
      ['x-unknown', json],
    ] as const) {
      const res = await request(server)
        .post('/api/echo')
        .set(h)
        .set('content-type', 'application/json')
        .set('content-encoding', coding)
        .send(body);
      expect(res.status, coding).toBe(415);
      expect(res.body).toEqual({
        message: 'Compressed request bodies are not supported: send the body without Content-Encoding.',
        code: ERROR_CODES.unsupportedMediaType,
      });
    }
    const plain = await request(server)
      .post('/api/echo')
      .set(h)
      .set('content-type', 'application/json')
      .set('content-encoding', 'identity')
      .send(json.toString());
    expect(plain.status, plain.text).toBe(200);
  });

  it('answers a method a path does not take 405 and one no route takes 501, never "Internal server error"', async () => {
    const { server } = makeApp();
    const h = await auth();
    const wrong = await request(server).delete('/api/echo').set(h).expect(405);
    expect(wrong.body).toEqual({ message: 'Method not allowed', code: ERROR_CODES.methodNotAllowed });
    const unknown = await request(server).propfind?.('/api/echo').set(h);
    expect(unknown?.status).toBe(501);
    expect(unknown?.body).toEqual({ message: 'Method not implemented', code: ERROR_CODES.notImplemented });
  });

  it('maps domain errors by code and hides internals of unexpected ones', async () => {
    const { server, lines } = makeApp();
    const h = await auth();
    await request(server)
      .get('/api/conflict')
      .set(h)
      .expect(409, { message: 'Already there', code: ERROR_CODES.conflict });
    const boom = await request(server).get('/api/boom').set(h).expect(500);
    expect(boom.body).toEqual({ message: 'Internal server error', code: ERROR_CODES.internal });
    expect(JSON.stringify(boom.body)).not.toContain('secret');
    expect(lines.some((l) => l.msg === 'unhandled error')).toBe(true);
    // A busy or unreachable store is 503 with Retry-After, never 500, and says nothing inside.
    for (const path of ['/api/busy', '/api/unreachable', '/api/conflict-write']) {
      const busy = await request(server).get(path).set(h).expect(503);
      expect(busy.headers['retry-after']).toBe('5');
      expect(busy.body).toEqual({
        message: 'The service is busy. Please try again shortly.',
        code: ERROR_CODES.unavailable,
      });
    }
    const missing = await request(server).get('/api/nothing-here').set(h).expect(404);
    expect(missing.body).toEqual({ message: 'Not found', code: ERROR_CODES.notFound });
  });

  it('carries the request id into the response and every log line of the request, without secrets', async () => {
    const { server, lines } = makeApp();
    const h = await auth();
    const res = await request(server).get('/api/log').set(h).set(REQUEST_ID_HEADER, 'req-123').expect(200);
    expect(res.headers[REQUEST_ID_HEADER]).toBe('req-123');
    const mine = lines.filter((l) => l.reqId === 'req-123');
    expect(mine.map((l) => l.msg)).toEqual(['inside the handler', 'request']);
    expect(mine[1]).toMatchObject({ method: 'GET', path: '/api/log', status: 200, user: USER.userId });
    expect(JSON.stringify(lines)).not.toContain(h[IDENTITY_HEADER]);
    // A request id that could forge log lines is replaced.
    const forged = await request(server).get('/api/log').set(h).set(REQUEST_ID_HEADER, 'a b" {"level":60}').expect(200);
    expect(forged.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
