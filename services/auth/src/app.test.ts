import { ERROR_CODES, IDENTITY_HEADER, type Identity, SESSION_REFRESH_HEADER } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { type Bus, connectBus, connectMongo, createLogger } from '@nrad/service-kit';
import { testToken } from '@nrad/service-kit/test-identity';
import type { Connection } from 'mongoose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from './app.ts';
import { authTestConfig } from './test-support.ts';

const t = testNamespace();
const ADMIN = { email: 'admin@nrad.test', password: 'admin-password-123' };
const config = authTestConfig({
  mongoUrl: t.mongoUrl,
  natsUrl: t.natsUrl,
  dbName: t.db('auth'),
  admin: ADMIN,
});
const logger = createLogger({ name: 'auth-test', level: 'silent' });

let db: Connection;
let bus: Bus;
let built: Awaited<ReturnType<typeof createApp>> | undefined;
let server: ReturnType<Awaited<ReturnType<typeof createApp>>['app']['callback']>;
let deps: Awaited<ReturnType<typeof createApp>>['deps'];

beforeAll(async () => {
  db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
  bus = await connectBus({ url: config.NATS_URL, name: 'auth-test' });
  built = await createApp({ config, db, bus, logger });
  server = built.app.callback();
  deps = built.deps;
});
afterAll(async () => {
  await built?.stop();
  await bus?.nc.close();
  await db?.close();
});

const as = async (identity: Identity) => ({ [IDENTITY_HEADER]: await testToken(identity) });
const anonymous = () => as({ kind: 'anonymous' });
const userHeaders = (u: { id: string; name: string; organization: 'BPS' | 'FIA' | 'CUS'; role: string }) =>
  as({ kind: 'user', userId: u.id, name: u.name, organization: u.organization, role: u.role });
const gateway = () => as({ kind: 'service', service: 'gateway' });
const userCount = () => db.collection('users').countDocuments();

const newUser = (overrides: Record<string, unknown> = {}) => ({
  name: 'Ann Analyst',
  email: `ann.${Math.random().toString(36).slice(2)}@agency.bm`,
  password: 'correct horse battery',
  role: 'Analyst',
  organization: 'BPS',
  ...overrides,
});

async function registered(overrides: Record<string, unknown> = {}) {
  const body = newUser(overrides);
  const res = await request(server)
    .post('/api/auth/register')
    .set(await anonymous())
    .send(body)
    .expect(201);
  return {
    body,
    user: res.body.user as { id: string; name: string; organization: 'BPS' | 'FIA' | 'CUS'; role: string },
  };
}

describe('registration', () => {
  it('registers a user of each agency', async () => {
    for (const organization of ['BPS', 'FIA', 'CUS']) {
      const body = newUser({ organization });
      const res = await request(server)
        .post('/api/auth/register')
        .set(await anonymous())
        .send(body)
        .expect(201);
      expect(res.body).toEqual({
        message: 'Account created successfully',
        user: {
          id: expect.stringMatching(/^[a-f0-9]{24}$/),
          name: body.name,
          email: body.email,
          organization,
          role: 'Analyst',
        },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/password|argon/i);
    }
  });

  it('refuses a duplicate email in another letter case with "User already exists"', async () => {
    const { body } = await registered({ email: 'Dup.User@BPS.bm' });
    const before = await userCount();
    const res = await request(server)
      .post('/api/auth/register')
      .set(await anonymous())
      .send(newUser({ email: 'dup.user@bps.BM', organization: 'FIA' }))
      .expect(409);
    expect(res.body).toEqual({ message: 'User already exists', code: ERROR_CODES.userExists });
    expect(await userCount()).toBe(before);
    expect(body.email).toBe('Dup.User@BPS.bm');
  });

  it('stores only one account when the same email registers twice at once', async () => {
    const email = `race.${Date.now()}@cus.bm`;
    const h = await anonymous();
    const results = await Promise.all(
      [1, 2, 3].map(() => request(server).post('/api/auth/register').set(h).send(newUser({ email }))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await db.collection('users').countDocuments({ emailKey: email })).toBe(1);
  });

  it('refuses bad input with a clear message and stores nothing', async () => {
    const before = await userCount();
    const h = await anonymous();
    const cases: Array<[unknown, number, string]> = [
      [newUser({ email: 'not-an-email' }), 400, 'email: Invalid email'],
      [newUser({ password: '' }), 400, 'password: Password must be at least 8 characters'],
      [newUser({ password: 'short' }), 400, 'password: Password must be at least 8 characters'],
      [newUser({ organization: 'MI6' }), 400, 'organization: Organization must be one of BPS, FIA, CUS'],
      [newUser({ organization: 'ADMIN' }), 400, 'organization: Organization must be one of BPS, FIA, CUS'],
      [newUser({ email: { $gt: '' } }), 400, 'email:'],
      [newUser({ isAdmin: true }), 400, 'Unrecognized key: "isAdmin"'],
      [newUser({ name: '   ' }), 400, 'name: Name is required'],
    ];
    for (const [body, status, message] of cases) {
      const res = await request(server)
        .post('/api/auth/register')
        .set(h)
        .send(body as object);
      expect(res.status, message).toBe(status);
      expect(res.body.message).toContain(message);
      expect(res.body.code).toBe(ERROR_CODES.validation);
    }
    const malformed = await request(server).post('/api/auth/register').set(h).type('json').send('{"name": "x",');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe(ERROR_CODES.malformedJson);
    const huge = await request(server)
      .post('/api/auth/register')
      .set(h)
      .send(newUser({ name: 'x'.repeat(200_000) }));
    expect(huge.status).toBe(413);
    expect(await userCount()).toBe(before);
  });

  it('answers 401 without a gateway-signed identity', async () => {
    await request(server).post('/api/auth/register').send(newUser()).expect(401);
    await request(server)
      .post('/api/auth/register')
      .set(await gateway())
      .send(newUser())
      .expect(401);
  });
});

describe('credential verification (internal, gateway only)', () => {
  it('accepts the right password, any email case, and nothing else', async () => {
    const { body, user } = await registered();
    const verify = async (email: string, password: string) =>
      (
        await request(server)
          .post('/internal/credentials/verify')
          .set(await gateway())
          .send({ email, password })
          .expect(200)
      ).body;
    expect(await verify(body.email.toUpperCase(), body.password)).toEqual({
      ok: true,
      user: expect.objectContaining({ id: user.id }),
    });
    expect(await verify(body.email, 'wrong password')).toEqual({ ok: false });
    expect(await verify('nobody@nowhere.bm', 'whatever')).toEqual({ ok: false });
  });

  it('is not reachable with a user identity', async () => {
    const { user } = await registered();
    const h = await userHeaders(user);
    await request(server)
      .post('/internal/credentials/verify')
      .set(h)
      .send({ email: 'a@b.co', password: 'x' })
      .expect(401);
    await request(server).get(`/internal/users/${user.id}`).set(h).expect(401);
    await request(server)
      .get(`/internal/users/${user.id}`)
      .set(await gateway())
      .expect(200);
    await request(server)
      .get('/internal/users/not-an-id')
      .set(await gateway())
      .expect(404);
  });
});

describe('signed-in user', () => {
  it('changes the display name and asks the gateway to refresh the session', async () => {
    const { user } = await registered();
    const h = await userHeaders(user);
    const res = await request(server)
      .put('/api/auth/update-name')
      .set(h)
      .send({ name: '  Ann B. Analyst ' })
      .expect(200);
    expect(res.body.user).toMatchObject({ id: user.id, name: 'Ann B. Analyst' });
    expect(res.headers[SESSION_REFRESH_HEADER]).toBe('1');
    expect((await deps.users.findById(user.id))?.name).toBe('Ann B. Analyst');
    const empty = await request(server).put('/api/auth/update-name').set(h).send({ name: '   ' }).expect(400);
    expect(empty.body.message).toBe('name: Name is required');
    expect((await deps.users.findById(user.id))?.name).toBe('Ann B. Analyst');
    await request(server)
      .put('/api/auth/update-name')
      .set(await anonymous())
      .send({ name: 'X' })
      .expect(401);
  });

  it('sends a message to the administrator, stored as an open contact request', async () => {
    const { body, user } = await registered({ organization: 'CUS' });
    const h = await userHeaders(user);
    const res = await request(server)
      .post('/api/contact-admin')
      .set(h)
      .send({ subject: ' Access ', message: 'Please grant me access to the FIA link view.' })
      .expect(201);
    expect(res.body.message).toBe('Your message has been sent to the administrator.');
    const stored = await deps.contactRequests.listForUser(user.id);
    expect(stored).toEqual([
      expect.objectContaining({
        userEmail: body.email,
        userName: body.name,
        userOrganization: 'CUS',
        subject: 'Access',
        status: 'open',
        resolvedAt: null,
      }),
    ]);
    const blank = await request(server)
      .post('/api/contact-admin')
      .set(h)
      .send({ subject: 'x', message: '  ' })
      .expect(400);
    expect(blank.body.message).toBe('message: Please fill in both subject and message fields.');
    expect(await deps.contactRequests.listForUser(user.id)).toHaveLength(1);
  });
});

describe("ADMIN's contact-request inbox", () => {
  const adminHeaders = async () => {
    const admin = await deps.users.findCredentials(ADMIN.email);
    if (!admin) throw new Error('no ADMIN');
    return as({ kind: 'user', userId: admin.user.id, name: admin.user.name, organization: 'ADMIN', role: 'x' });
  };

  it('lists open requests first, newest first, a page at a time, and resolves one once', async () => {
    await db.collection('contact_requests').deleteMany({});
    const { user } = await registered({ organization: 'FIA' });
    const h = await userHeaders(user);
    for (const subject of ['first', 'second', 'third']) {
      await request(server)
        .post('/api/contact-admin')
        .set(h)
        .send({ subject, message: `about ${subject}` })
        .expect(201);
      await new Promise((r) => setTimeout(r, 5)); // distinct createdAt
    }
    const admin = await adminHeaders();
    const all = await request(server).get('/api/admin/contact-requests').set(admin).expect(200);
    expect(all.body).toMatchObject({ total: 3, open: 3 });
    expect(all.body.items.map((r: { subject: string }) => r.subject)).toEqual(['third', 'second', 'first']);

    const second = all.body.items[1] as { id: string };
    const resolved = await request(server)
      .post(`/api/admin/contact-requests/${second.id}/resolve`)
      .set(admin)
      .expect(200);
    expect(resolved.body.request).toMatchObject({ id: second.id, status: 'resolved', subject: 'second' });
    const resolvedAt = resolved.body.request.resolvedAt as string;
    expect(Date.parse(resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Again: unchanged, the first resolvedAt kept.
    const again = await request(server).post(`/api/admin/contact-requests/${second.id}/resolve`).set(admin).expect(200);
    expect(again.body.request.resolvedAt).toBe(resolvedAt);

    const after = await request(server).get('/api/admin/contact-requests?limit=2').set(admin).expect(200);
    expect(after.body).toMatchObject({ total: 3, open: 2 });
    expect(after.body.items.map((r: { subject: string; status: string }) => [r.subject, r.status])).toEqual([
      ['third', 'open'],
      ['first', 'open'],
    ]);
    const page2 = await request(server).get('/api/admin/contact-requests?limit=2&offset=2').set(admin).expect(200);
    expect(page2.body.items.map((r: { subject: string }) => r.subject)).toEqual(['second']);
    const openOnly = await request(server).get('/api/admin/contact-requests?status=resolved').set(admin).expect(200);
    expect(openOnly.body).toMatchObject({ total: 1, open: 2, items: [{ subject: 'second' }] });
  });

  it('is 403 for agency users, 401 without identity, 404 for an unknown id, 400 for bad paging', async () => {
    const { user } = await registered({ organization: 'BPS' });
    const h = await userHeaders(user);
    await request(server).get('/api/admin/contact-requests').set(h).expect(403);
    const stored = await db.collection('contact_requests').findOne({});
    const id = String(stored?._id);
    await request(server).post(`/api/admin/contact-requests/${id}/resolve`).set(h).expect(403);
    await request(server).get('/api/admin/contact-requests').expect(401);
    await request(server)
      .get('/api/admin/contact-requests')
      .set(await anonymous())
      .expect(401);
    const admin = await adminHeaders();
    const missing = await request(server)
      .post('/api/admin/contact-requests/0123456789abcdef01234567/resolve')
      .set(admin)
      .expect(404);
    expect(missing.body.message).toBe('Contact request not found');
    await request(server).post('/api/admin/contact-requests/not-an-id/resolve').set(admin).expect(404);
    const bad = await request(server).get('/api/admin/contact-requests?limit=0').set(admin).expect(400);
    expect(bad.body.message).toBe('limit: Limit must be at least 1');
    const status = await request(server).get('/api/admin/contact-requests?status=%24ne').set(admin).expect(400);
    expect(status.body.message).toBe('status: Status must be open or resolved');
    // Nothing changed by the refused calls.
    expect((await db.collection('contact_requests').findOne({ _id: stored?._id }))?.status).toBe(stored?.status);
  });
});

describe('the ADMIN account', () => {
  it('is created at start from configuration, once', async () => {
    const admin = await deps.users.findCredentials(ADMIN.email);
    expect(admin?.user).toMatchObject({ organization: 'ADMIN', role: 'Administrator' });
    // A second start (another replica, a restart) keeps the same account.
    const again = await createApp({ config: { ...config, ADMIN_PASSWORD: 'a-different-password' }, db, bus, logger });
    expect(again.deps).toBeDefined();
    await again.stop();
    expect(await db.collection('users').countDocuments({ emailKey: ADMIN.email })).toBe(1);
    const ok = await request(server)
      .post('/internal/credentials/verify')
      .set(await gateway())
      .send(ADMIN)
      .expect(200);
    expect(ok.body).toMatchObject({ ok: true, user: { organization: 'ADMIN' } });
  });
});
