import { ERROR_CODES } from '@nrad/contracts';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, cookieJar, newUser, nextIp, signIn, startAuthStack } from './stack.ts';

let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway({ LOGIN_LOCK_MINUTES: '0.05' }); // a 3-second lock keeps the test short
});

const cookieOf = (res: request.Response) => {
  const raw = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return raw.find((c) => c.startsWith('nrad.sid='));
};

async function register(ip: string, overrides: Record<string, unknown> = {}) {
  const body = newUser(overrides);
  await request(gw.server).post('/api/auth/register').set('x-forwarded-for', ip).send(body).expect(201);
  return body;
}

describe('sign-in, session and sign-out (SPEC §7)', () => {
  it('registers users of each agency, signs them in and out', async () => {
    for (const organization of ['BPS', 'FIA', 'CUS']) {
      const ip = nextIp();
      const body = await register(ip, { organization });
      const agent = request.agent(gw.server);
      const login = await agent
        .post('/api/auth/login')
        .set('x-forwarded-for', ip)
        .send({ email: body.email, password: body.password })
        .expect(200);
      expect(login.body.user).toMatchObject({ name: body.name, organization, role: body.role, email: body.email });
      const cookie = cookieOf(login);
      expect(cookie).toMatch(/httponly/i);
      expect(cookie).toMatch(/samesite=lax/i);
      expect(cookie).not.toMatch(/;\s*secure/i);

      const me = await agent.get('/api/auth/user').expect(200);
      expect(me.body).toEqual({ user: login.body.user });

      await agent.post('/api/auth/logout').expect(200, { message: 'Successfully logged out' });
      await agent.get('/api/auth/user').expect(401);
    }
  });

  it('sets the Secure flag when the request came over HTTPS', async () => {
    const ip = nextIp();
    const body = await register(ip);
    const login = await request(gw.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .set('x-forwarded-proto', 'https')
      .send({ email: body.email, password: body.password })
      .expect(200);
    expect(cookieOf(login)).toMatch(/;\s*secure/i);
  });

  it('ends the session server-side at logout: a replayed cookie gets 401', async () => {
    const jar = cookieJar((await signIn(gw.server)).login);
    await request(gw.server).get('/api/auth/user').set('cookie', jar).expect(200);
    await request(gw.server).post('/api/auth/logout').set('cookie', jar).expect(200);
    const replay = await request(gw.server).get('/api/auth/user').set('cookie', jar).expect(401);
    expect(replay.body).toEqual({ message: 'Not signed in', code: ERROR_CODES.unauthenticated });
    await request(gw.server)
      .post('/api/contact-admin')
      .set('cookie', jar)
      .send({ subject: 's', message: 'm' })
      .expect(401);
  });

  it('issues a new session id at sign-in and forgets the previous one', async () => {
    const ip = nextIp();
    const a = await register(ip);
    const b = await register(ip, { organization: 'CUS' });
    const agent = request.agent(gw.server);
    const first = await agent
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: a.email, password: a.password });
    const second = await agent
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: b.email, password: b.password });
    const idOf = (res: request.Response) => (cookieOf(res) as string).split(';')[0];
    expect(idOf(first)).not.toBe(idOf(second));
    const sessions = await stack.redis.keys(`${gw.config.REDIS_PREFIX}sess:*`);
    const firstId = (idOf(first) as string).slice('nrad.sid='.length);
    expect(sessions.some((k) => k.endsWith(firstId))).toBe(false);
    expect((await agent.get('/api/auth/user').expect(200)).body.user.email).toBe(b.email);
  });

  it('changes the display name and the session follows', async () => {
    const { agent } = await signIn(gw.server);
    const res = await agent.put('/api/auth/update-name').send({ name: 'Gary Renamed' }).expect(200);
    expect(res.body.user.name).toBe('Gary Renamed');
    expect((await agent.get('/api/auth/user').expect(200)).body.user.name).toBe('Gary Renamed');
    const stored = await Promise.all(
      (await stack.redis.keys(`${gw.config.REDIS_PREFIX}sess:*`)).map((k) => stack.redis.get(k)),
    );
    expect(stored.some((s) => s?.includes('"Gary Renamed"'))).toBe(true);
  });

  it('sends a message to the administrator', async () => {
    const { agent, body } = await signIn(gw.server, { organization: 'BPS' });
    const res = await agent.post('/api/contact-admin').send({ subject: 'Access', message: 'Hello' }).expect(201);
    expect(res.body.message).toBe('Your message has been sent to the administrator.');
    const stored = await stack.db.collection('contact_requests').findOne({ userEmail: body.email });
    expect(stored).toMatchObject({ subject: 'Access', status: 'open', userOrganization: 'BPS' });
  });

  it('signs in the ADMIN created from configuration', async () => {
    const res = await request(gw.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', nextIp())
      .send(ADMIN)
      .expect(200);
    expect(res.body.user).toMatchObject({ organization: 'ADMIN' });
  });

  it('expires a session past its absolute lifetime, however active', async () => {
    const { agent, body } = await signIn(gw.server);
    // Age the session by 13 hours (default absolute lifetime: 12) in the store itself.
    for (const key of await stack.redis.keys(`${gw.config.REDIS_PREFIX}sess:*`)) {
      const s = JSON.parse((await stack.redis.get(key)) as string);
      if (s.user?.email !== body.email) continue;
      s.issuedAt -= 13 * 3_600_000;
      await stack.redis.set(key, JSON.stringify(s), 'KEEPTTL');
    }
    await agent.get('/api/auth/user').expect(401);
  });

  it('expires an idle session server-side; activity keeps it alive', async () => {
    const idle = stack.gateway({ SESSION_IDLE_MINUTES: String(2 / 60) }); // 2 seconds
    // The cookie is sent by hand, whatever its Expires says: the server must refuse on its own.
    const jar = cookieJar((await signIn(idle.server)).login);
    const me = () => request(idle.server).get('/api/auth/user').set('cookie', jar);
    await new Promise((r) => setTimeout(r, 1200));
    await me().expect(200); // activity resets the idle clock
    await new Promise((r) => setTimeout(r, 1200));
    await me().expect(200);
    await new Promise((r) => setTimeout(r, 2500));
    await me().expect(401);
  });

  it('pushes the idle expiry back at most every tenth of the idle timeout, not on every request', async () => {
    const idle = stack.gateway({ SESSION_IDLE_MINUTES: String(3 / 60) }); // 3 seconds: touched every 0.3 s
    const jar = cookieJar((await signIn(idle.server)).login);
    const sid = decodeURIComponent(/nrad\.sid=([^;]+)/.exec(jar)?.[1] ?? '');
    const ttlOf = () => stack.redis.pttl(`${idle.config.REDIS_PREFIX}sess:${sid}`);
    expect(await ttlOf()).toBeGreaterThan(0);
    const me = () => request(idle.server).get('/api/auth/user').set('cookie', jar).expect(200);
    // Right after sign-in (which wrote it): answered without writing the session again.
    const first = await me();
    expect(cookieOf(first)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 600));
    // koa-session keeps a session in the store 10 s beyond its cookie: 13 s at sign-in, counting down.
    const before = await ttlOf();
    expect(before).toBeLessThan(12_700);
    // Past the touch interval: written with a fresh expiry, in the store and in the cookie.
    const touched = await me();
    expect(cookieOf(touched)).toMatch(/expires=/i);
    expect(await ttlOf()).toBeGreaterThan(before + 400);
  });
});

describe('lockout and rate limits', () => {
  it('locks an account from an address after 5 failures there, refusing even the right password, then lets it in', async () => {
    const ip = nextIp();
    const body = await register(ip);
    const attempt = (password: string) =>
      request(gw.server).post('/api/auth/login').set('x-forwarded-for', ip).send({ email: body.email, password });
    for (let i = 1; i <= 4; i++) {
      const res = await attempt('wrong password');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Invalid credentials', code: ERROR_CODES.invalidCredentials });
    }
    const fifth = await attempt('wrong password');
    expect(fifth.status).toBe(423);
    expect(fifth.body.code).toBe(ERROR_CODES.accountLocked);
    expect(fifth.body.message).toMatch(/locked after too many failed sign-in attempts/);
    expect(fifth.headers['retry-after']).toBe('3');
    const right = await attempt(body.password);
    expect(right.status).toBe(423);
    // The owner signing in from elsewhere is not held up by a stranger's failures (issue 37).
    await request(gw.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', nextIp())
      .send({ email: body.email, password: body.password })
      .expect(200);
    // Another letter case is the same account.
    const upper = await request(gw.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: body.email.toUpperCase(), password: body.password });
    expect(upper.status).toBe(423);
    await new Promise((r) => setTimeout(r, 3200));
    await attempt(body.password).expect(200);
  });

  it('makes an address wait longer with each further failure, up to the limit', async () => {
    const growing = stack.gateway({ LOGIN_FIRST_DELAY_SECONDS: '1', LOGIN_LOCK_MINUTES: '0.07' });
    const ip = nextIp();
    const body = await register(ip);
    const attempt = () =>
      request(growing.server)
        .post('/api/auth/login')
        .set('x-forwarded-for', ip)
        .send({ email: body.email, password: 'wrong password' });
    for (let i = 0; i < 4; i++) await attempt().expect(401);
    const waits: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await attempt().expect(423);
      waits.push(res.headers['retry-after'] as string);
      await new Promise((r) => setTimeout(r, Number(res.headers['retry-after']) * 1000 + 150));
    }
    // 1 s, doubled each time, at most LOGIN_LOCK_MINUTES (4.2 s, shown as whole seconds).
    expect(waits).toEqual(['1', '2', '4', '5']);
  });

  it('shows ADMIN the waits and lets ADMIN end one; nobody else', async () => {
    const ip = nextIp();
    const body = await register(ip);
    for (let i = 0; i < 5; i++) {
      await request(gw.server)
        .post('/api/auth/login')
        .set('x-forwarded-for', ip)
        .send({ email: body.email, password: 'wrong password' });
    }
    const admin = request.agent(gw.server);
    await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
    const listed = await admin.get('/api/admin/sign-in-locks').expect(200);
    const lock = listed.body.items.find((l: { email: string }) => l.email === body.email.toLowerCase());
    expect(lock).toMatchObject({ clientAddress: ip, failures: 5 });
    expect(Date.parse(lock.until)).toBeGreaterThan(Date.now());
    const agency = await signIn(gw.server, { organization: 'FIA' });
    const refused = await agency.agent.get('/api/admin/sign-in-locks').expect(403);
    expect(refused.body.message).toBe('Access denied. Admin privileges required.');
    await agency.agent.delete(`/api/admin/sign-in-locks/${lock.id}`).expect(403);
    await request(gw.server).get('/api/admin/sign-in-locks').expect(401);
    await admin.delete(`/api/admin/sign-in-locks/${lock.id}`).expect(204);
    await admin.delete(`/api/admin/sign-in-locks/${lock.id}`).expect(404);
    await admin.delete('/api/admin/sign-in-locks/not-an-id').expect(404);
    // Unlocked: the address may sign in at once.
    await request(gw.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: body.email, password: body.password })
      .expect(200);
    const after = await admin.get('/api/admin/sign-in-locks').expect(200);
    expect(after.body.items.some((l: { id: string }) => l.id === lock.id)).toBe(false);
  });

  it('a success clears the failure count', async () => {
    const ip = nextIp();
    const body = await register(ip);
    const attempt = (password: string) =>
      request(gw.server).post('/api/auth/login').set('x-forwarded-for', ip).send({ email: body.email, password });
    for (let i = 0; i < 4; i++) await attempt('nope nope').expect(401);
    await attempt(body.password).expect(200);
    for (let i = 0; i < 4; i++) await attempt('nope nope').expect(401);
    await attempt(body.password).expect(200);
  });

  it('limits failed sign-ins per address across accounts', async () => {
    const limited = stack.gateway({ LOGIN_IP_MAX_FAILURES: '3' });
    const ip = nextIp();
    const body = await register(ip);
    for (let i = 0; i < 3; i++) {
      await request(limited.server)
        .post('/api/auth/login')
        .set('x-forwarded-for', ip)
        .send({ email: `someone${i}@x.bm`, password: 'guess' })
        .expect(401);
    }
    const blocked = await request(limited.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: body.email, password: body.password });
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    // Another address is unaffected.
    await request(limited.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', nextIp())
      .send({ email: body.email, password: body.password })
      .expect(200);
  });

  it('limits registrations per address', async () => {
    const limited = stack.gateway({ REGISTER_IP_MAX_PER_HOUR: '2' });
    const ip = nextIp();
    for (let i = 0; i < 2; i++) {
      await request(limited.server).post('/api/auth/register').set('x-forwarded-for', ip).send(newUser()).expect(201);
    }
    const third = await request(limited.server).post('/api/auth/register').set('x-forwarded-for', ip).send(newUser());
    expect(third.status).toBe(429);
    expect(third.body.code).toBe(ERROR_CODES.rateLimited);
  });
});

describe('bad input at sign-in', () => {
  it('answers 4xx with a clear message and signs nobody in', async () => {
    const ip = nextIp();
    const body = await register(ip);
    const post = () => request(gw.server).post('/api/auth/login').set('x-forwarded-for', ip);
    const cases: Array<[request.Test, number, string]> = [
      [post().send({ email: 'not-an-email', password: 'x' }), 400, 'email: Invalid email'],
      [post().send({ email: body.email, password: '' }), 400, 'password: String must contain at least 1 character(s)'],
      [post().send({ email: { $gt: '' }, password: body.password }), 400, 'email:'],
      [post().send({ email: body.email, password: { $ne: null } }), 400, 'password:'],
      [post().type('json').send('{"email": '), 400, 'Request body is not valid JSON'],
      [post().send({ email: body.email, password: 'x'.repeat(20_000) }), 413, 'Request body is too large'],
      [post().type('text/plain').send('email=a'), 415, 'Request body must be JSON'],
    ];
    for (const [req, status, message] of cases) {
      const res = await req;
      expect(res.status, message).toBe(status);
      expect(res.body.message).toContain(message);
      expect(cookieOf(res)).toBeUndefined();
    }
  });

  it('registration bad input passes through the gateway with the service message', async () => {
    const ip = nextIp();
    const taken = await register(ip);
    const post = (b: unknown) =>
      request(gw.server)
        .post('/api/auth/register')
        .set('x-forwarded-for', ip)
        .send(b as object);
    expect((await post(newUser({ email: taken.email.toUpperCase() }))).body.message).toContain('User already exists');
    expect((await post(newUser({ organization: 'ADMIN' }))).status).toBe(400);
    expect((await post(newUser({ organization: 'NSA' }))).status).toBe(400);
    expect((await post(newUser({ email: { $gt: '' } }))).status).toBe(400);
    const huge = await post(newUser({ role: 'x'.repeat(300_000) }));
    expect(huge.status).toBe(413);
    const malformed = await request(gw.server)
      .post('/api/auth/register')
      .set('x-forwarded-for', ip)
      .type('json')
      .send('{');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe(ERROR_CODES.malformedJson);
  });
});
