import { IDENTITY_HEADER, REQUEST_ID_HEADER, type UserIdentity } from '@nrad/contracts';
import { testNamespace, waitUntil } from '@nrad/infra/harness';
import { type Bus, connectBus, connectMongo, createLogger, type signIdentity } from '@nrad/service-kit';
import { readAuditStream, type StreamedAuditEvent } from '@nrad/service-kit/test-audit';
import { testToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { authTestConfig } from '../src/test-support.ts';

const t = testNamespace();
const logger = createLogger({ name: 'auth-audit-test', level: 'silent' });
const config = authTestConfig({
  mongoUrl: t.mongoUrl,
  natsUrl: t.natsUrl,
  dbName: t.db('auth'),
  auditStream: t.stream('AUDIT'),
  auditSubjectPrefix: t.subject('audit'),
});
const db = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB });
const bus = await connectBus({ url: config.NATS_URL, name: 'auth-audit-test' });
const built = await createApp({ config, db, bus, logger });
const server = built.app.callback();
afterAll(async () => {
  await built.stop();
  await bus.nc.close();
  await db.close();
});

const headersOf = async (identity: Parameters<typeof signIdentity>[0]) => ({
  [IDENTITY_HEADER]: await testToken(identity),
});
const admin: UserIdentity = {
  kind: 'user',
  userId: new Types.ObjectId().toHexString(),
  name: 'Ada Admin',
  organization: 'ADMIN',
  role: 'Administrator',
};

/** Every event of the audit stream, once nothing waits in the spool, with its subject and `Nats-Msg-Id`. */
async function auditEvents(b: Bus, stream: string): Promise<StreamedAuditEvent[]> {
  await waitUntil(
    'audit spool drained',
    async () => !built.audit.pending && (await db.collection('audit_spool').countDocuments({})) === 0,
    20_000,
  );
  return readAuditStream(b, stream);
}

describe('audit events of the auth service (issue 21)', () => {
  it("records ADMIN's inbox and resolutions, account changes and refusals; nothing for visitors and sign-in checks", async () => {
    // A visitor registers (nothing: the gateway records sign-ins, an account of one's own is not audited).
    const body = {
      name: 'Ann Analyst',
      email: `ann.${Date.now()}@bps.bm`,
      password: 'correct horse battery',
      role: 'Analyst',
      organization: 'BPS',
    };
    const ann = (
      await request(server)
        .post('/api/auth/register')
        .set(await headersOf({ kind: 'anonymous' }))
        .send(body)
        .expect(201)
    ).body.user as { id: string; name: string };
    const annIdentity: UserIdentity = {
      kind: 'user',
      userId: ann.id,
      name: ann.name,
      organization: 'BPS',
      role: 'Analyst',
    };
    const annHeaders = await headersOf(annIdentity);
    // The gateway's credential check: nothing (the gateway records the sign-in).
    await request(server)
      .post('/internal/credentials/verify')
      .set(await headersOf({ kind: 'service', service: 'gateway' }))
      .send({ email: body.email, password: body.password })
      .expect(200);
    // A message to the administrator: nothing.
    await request(server)
      .post('/api/contact-admin')
      .set(annHeaders)
      .send({ subject: 'Access', message: 'Please help' })
      .expect(201);
    // A user's own name: an account change.
    await request(server)
      .put('/api/auth/update-name')
      .set(annHeaders)
      .set(REQUEST_ID_HEADER, 'req-name-1')
      .set('x-forwarded-for', '10.1.1.1')
      .send({ name: 'Ann B. Analyst' })
      .expect(200);
    // An agency user on ADMIN's inbox: 403, recorded as a refusal.
    await request(server)
      .get('/api/admin/contact-requests')
      .set(annHeaders)
      .set(REQUEST_ID_HEADER, 'req-refused-1')
      .set('x-forwarded-for', '10.1.1.2')
      .expect(403);

    const adminHeaders = await headersOf(admin);
    const inbox = await request(server)
      .get('/api/admin/contact-requests')
      .set(adminHeaders)
      .set(REQUEST_ID_HEADER, 'req-inbox-1')
      .set('x-forwarded-for', '10.2.2.2')
      .expect(200);
    const requestId = inbox.body.items[0].id as string;
    await request(server)
      .post(`/api/admin/contact-requests/${requestId}/resolve`)
      .set(adminHeaders)
      .set(REQUEST_ID_HEADER, 'req-resolve-1')
      .set('x-forwarded-for', '10.2.2.3')
      .expect(200);
    // Refused input and an unknown request change nothing: no event.
    await request(server).get('/api/admin/contact-requests?limit=0').set(adminHeaders).expect(400);
    await request(server)
      .post('/api/admin/contact-requests/0123456789abcdef01234567/resolve')
      .set(adminHeaders)
      .expect(404);
    // A signed-in user opening an account for someone else: an account change.
    const other = (
      await request(server)
        .post('/api/auth/register')
        .set(adminHeaders)
        .set(REQUEST_ID_HEADER, 'req-register-1')
        .send({ ...body, email: `bob.${Date.now()}@fia.bm`, name: 'Bob', organization: 'FIA' })
        .expect(201)
    ).body.user as { id: string };

    const events = await auditEvents(bus, config.AUDIT_STREAM);
    expect(events.map((e) => `${e.action} ${e.detail?.what ?? e.detail?.path}`).sort()).toEqual([
      'access.refused /api/admin/contact-requests',
      'admin contact-request.resolve',
      'admin contact-requests.list',
      'admin register',
      'admin update-name',
    ]);
    for (const e of events) {
      expect(e.service).toBe('auth');
      expect(e.recordIds).toEqual([]);
      expect(e.subject).toBe(`${t.subject('audit')}.${e.action}`);
      expect(e.msgId).toBe(e.id);
    }
    const what = (w: string) => events.find((e) => e.detail?.what === w);
    expect(what('update-name')).toMatchObject({
      action: 'admin',
      userId: ann.id,
      organization: 'BPS',
      requestId: 'req-name-1',
      clientAddress: '10.1.1.1',
      detail: { what: 'update-name' },
    });
    expect(events.find((e) => e.action === 'access.refused')).toMatchObject({
      userId: ann.id,
      organization: 'BPS',
      requestId: 'req-refused-1',
      clientAddress: '10.1.1.2',
      detail: { status: 403, method: 'GET', path: '/api/admin/contact-requests' },
    });
    expect(what('contact-requests.list')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-inbox-1',
      clientAddress: '10.2.2.2',
      detail: { what: 'contact-requests.list' },
    });
    expect(what('contact-request.resolve')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-resolve-1',
      clientAddress: '10.2.2.3',
      detail: { what: 'contact-request.resolve', id: requestId },
    });
    expect(what('register')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-register-1',
      clientAddress: null,
      detail: { what: 'register', id: other.id },
    });
    // No secret travels: neither the password nor its hash.
    expect(JSON.stringify(events)).not.toMatch(/password|argon|correct horse/i);
  });
});
