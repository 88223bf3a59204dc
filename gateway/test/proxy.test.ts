import { createApp as createAuthApp } from '@nrad/auth-service/app';
import { authTestConfig } from '@nrad/auth-service/test-support';
import { ERROR_CODES, IDENTITY_HEADER, REQUEST_ID_HEADER } from '@nrad/contracts';
import { freePort } from '@nrad/infra/harness';
import { connectMongo, createLogger, listen } from '@nrad/service-kit';
import { testToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, nextIp, signIn, startAuthStack } from './stack.ts';

let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

const signedIn = (organization = 'FIA') => signIn(gw.server, { organization });

describe('routing', () => {
  it('answers 404 JSON for unknown /api paths and 401 JSON for known ones without a session', async () => {
    const unknown = await request(gw.server).get('/api/nothing/here').expect(404);
    expect(unknown.body).toEqual({ message: 'Not found', code: ERROR_CODES.notFound });
    const { agent } = await signedIn();
    await agent.get('/api/nothing/here').expect(404);
    const anon = await request(gw.server).put('/api/auth/update-name').send({ name: 'x' }).expect(401);
    expect(anon.body).toEqual({ message: 'Not signed in', code: ERROR_CODES.unauthenticated });
    await request(gw.server).post('/api/contact-admin').send({ subject: 'a', message: 'b' }).expect(401);
    await request(gw.server).get('/api/auth/user').expect(401);
    // A service's internal path is never forwarded: outside /api the gateway only serves the app.
    const internal = await request(gw.server).get('/internal/users/000000000000000000000000');
    expect(internal.type).not.toBe('application/json');
    expect(internal.text).not.toContain('000000000000000000000000');
  });

  it('never lets a client vouch for itself with an identity header', async () => {
    const victim = await signedIn('BPS');
    const forged = await testToken({ kind: 'user', userId: victim.user.id, name: 'x', organization: 'BPS', role: 'r' });
    // Without a session, a (stolen, valid) token in the header is worth nothing.
    await request(gw.server)
      .put('/api/auth/update-name')
      .set(IDENTITY_HEADER, forged)
      .send({ name: 'Hacked' })
      .expect(401);
    // With someone else's session, the gateway's token replaces it: the caller renames only itself.
    const attacker = await signedIn('CUS');
    await attacker.agent.put('/api/auth/update-name').set(IDENTITY_HEADER, forged).send({ name: 'Hacked' }).expect(200);
    expect((await victim.agent.get('/api/auth/user').expect(200)).body.user.name).toBe(victim.body.name);
    expect((await attacker.agent.get('/api/auth/user').expect(200)).body.user.name).toBe('Hacked');
  });

  it('carries the request id to the service and back', async () => {
    const { agent } = await signedIn();
    const res = await agent.put('/api/auth/update-name').set(REQUEST_ID_HEADER, 'trace-42').send({ name: 'Traced' });
    expect(res.status).toBe(200);
    expect(res.headers[REQUEST_ID_HEADER]).toBe('trace-42');
    const fresh = await agent.get('/api/auth/user');
    expect(fresh.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a service port reached directly, without the gateway, gives nothing', async () => {
    const direct = `http://127.0.0.1:${stack.authPort}`;
    await request(direct).post('/api/auth/register').send(newUser()).expect(401);
    await request(direct).post('/internal/credentials/verify').send({ email: 'a@b.co', password: 'x' }).expect(401);
    await request(direct).get('/healthz').expect(200);
  });
});

describe('security', () => {
  it('sends security headers with a same-origin content-security policy', async () => {
    const res = await request(gw.server).get('/api/auth/user');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('refuses state-changing requests from another site', async () => {
    const { agent } = await signedIn();
    const evil = await agent.put('/api/auth/update-name').set('origin', 'https://evil.example').send({ name: 'x' });
    expect(evil.status).toBe(403);
    expect(evil.body.message).toBe('Cross-site request refused');
    await agent.put('/api/auth/update-name').set('sec-fetch-site', 'cross-site').send({ name: 'x' }).expect(403);
    await agent
      .put('/api/auth/update-name')
      .set('host', 'nrad.example:8080')
      .set('origin', 'http://nrad.example:8080')
      .set('sec-fetch-site', 'same-origin')
      .send({ name: 'Same Site' })
      .expect(200);
  });

  it('exposes health and readiness, and metrics only on the internal metrics port', async () => {
    const health = await request(gw.server).get('/api/health').expect(200);
    expect(health.body).toEqual({ status: 'ok', dependencies: { redis: 'up', auth: 'up' } });
    const ready = await request(gw.server).get('/readyz').expect(200);
    expect(ready.body).toEqual({ ready: true, checks: { redis: 'up', auth: 'up' } });
    const hidden = await request(gw.server).get('/metrics').expect(404);
    expect(hidden.text).not.toContain('http_request_duration_seconds');
    const metrics = await request(gw.metrics).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_request_duration_seconds');
    await request(gw.metrics).get('/api/health').expect(404);
  });
});

describe('when a service fails', () => {
  it('an unreachable service is a 503 with a generic message, and health says which', async () => {
    const port = await freePort();
    const down = stack.gateway({ AUTH_URL: `http://127.0.0.1:${port}` });
    const reg = await request(down.server).post('/api/auth/register').set('x-forwarded-for', nextIp()).send(newUser());
    expect(reg.status).toBe(503);
    expect(reg.body.code).toBe(ERROR_CODES.unavailable);
    const login = await request(down.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', nextIp())
      .send({ email: 'someone@bps.bm', password: 'whatever it is' });
    expect(login.status).toBe(503);
    expect(login.body.message).toBe('Sign-in is temporarily unavailable. Please try again shortly.');
    const health = await request(down.server).get('/api/health').expect(503);
    expect(health.body).toEqual({ status: 'unavailable', dependencies: { redis: 'up', auth: 'down' } });
  });

  describe('a service whose database went away', () => {
    let close: () => Promise<void>;
    let broken: ReturnType<typeof stack.gateway>;
    beforeAll(async () => {
      const logger = createLogger({ name: 'broken-auth', level: 'silent' });
      const config = authTestConfig({
        mongoUrl: stack.t.mongoUrl,
        natsUrl: stack.t.natsUrl,
        dbName: stack.t.db('auth'),
      });
      const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
      const auth = await createAuthApp({ config, db, bus: stack.bus, logger });
      const server = await listen(auth.app, 0, '127.0.0.1');
      await db.close();
      close = async () => {
        await server.close();
        await auth.stop();
      };
      broken = stack.gateway({ AUTH_URL: `http://127.0.0.1:${server.port}` });
    });
    afterAll(() => close?.());

    it('its failure reaches the client as a generic 503 with Retry-After, without internals', async () => {
      const res = await request(broken.server)
        .post('/api/auth/register')
        .set('x-forwarded-for', nextIp())
        .send(newUser());
      // A store out of reach is the service being unavailable, not an error of the request (issue 37).
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        message: 'The service is temporarily unavailable. Please try again shortly.',
        code: ERROR_CODES.unavailable,
      });
      const health = await request(broken.server).get('/api/health').expect(503);
      expect(health.body.dependencies.auth).toBe('down');
    });
  });
});
