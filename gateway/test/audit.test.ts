import { AuditPageSchema } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { auditSubject, publishEvent } from '@nrad/service-kit';
import { Types } from 'mongoose';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, gatewayAuditEvents, newUser, nextIp, signIn, startAuthStack } from './stack.ts';

/** `GET /api/audit` through the gateway, with real sessions, to the real audit service (ADR 0014). */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;
let admin: request.Agent;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
  admin = request.agent(gw.server);
  await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
});

describe('GET /api/audit through the gateway', () => {
  it('answers ADMIN with the trail the audit service stored', async () => {
    const userId = new Types.ObjectId().toHexString();
    const event = {
      id: crypto.randomUUID(),
      action: 'sign-in' as const,
      at: new Date().toISOString(),
      userId,
      organization: 'FIA' as const,
      recordIds: [],
      requestId: 'gw-audit-1',
      clientAddress: '10.0.0.1',
      service: 'gateway',
    };
    await publishEvent(stack.bus, auditSubject(stack.auditConfig, event.action), event.id, event);
    await waitUntil('the event stored', async () => {
      const res = await admin.get(`/api/audit?userId=${userId}`).expect(200);
      return res.body.total === 1;
    });
    const page = AuditPageSchema.parse((await admin.get(`/api/audit?userId=${userId}`).expect(200)).body);
    expect(page.items).toEqual([
      {
        id: event.id,
        seq: expect.any(Number),
        action: 'sign-in',
        organization: 'FIA',
        userId,
        recordIds: [],
        at: event.at,
        requestId: 'gw-audit-1',
        // ADMIN sees where from and which service (a sign-in has no detail; a refusal's says what was tried).
        clientAddress: expect.any(String),
        service: 'gateway',
      },
    ]);
  });

  it('gives an agency its own record’s timeline only', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const created = await police.agent
      .post('/api/records')
      .send({
        incidentNumber: `GA-${Date.now().toString(36)}`,
        suspectName: 'Audit Subject',
        suspectDob: '1980-01-02',
        incidentDate: '2024-03-04',
        caseAmount: '100',
        sourceOfRecord: 'Police Investigation',
        internationalNexus: false,
      })
      .expect(201);
    const id = created.body.id as string;
    await waitUntil(
      'the owner known',
      async () => (await police.agent.get(`/api/audit?recordId=${id}`)).status === 200,
    );
    // The records service's audit event of the create (from its outbox) is in the timeline.
    await waitUntil('the create in the timeline', async () => {
      const res = await police.agent.get(`/api/audit?recordId=${id}`).expect(200);
      return res.body.items.some((i: { action: string }) => i.action === 'record.create');
    });
    const own = AuditPageSchema.parse((await police.agent.get(`/api/audit?recordId=${id}`).expect(200)).body);
    expect(own.items.find((i) => i.action === 'record.create')).toMatchObject({
      userId: police.user.id,
      organization: 'BPS',
      recordIds: [id],
    });
    for (const item of own.items) expect(item.recordIds).toEqual([id]);

    const other = await customs.agent.get(`/api/audit?recordId=${id}`).expect(404);
    expect(other.body).toEqual({ message: 'Record not found', code: 'NOT_FOUND' });
    const bare = await police.agent.get('/api/audit').expect(400);
    expect(bare.body.code).toBe('VALIDATION_ERROR');
  });

  it('is 401 without a session', async () => {
    await request(gw.server).get('/api/audit').expect(401);
  });
});

describe('sign-in and sign-out in the trail', () => {
  it('records a sign-in, each failed attempt, the lockout, a refused attempt while locked and the sign-out', async () => {
    const strict = stack.gateway({ LOGIN_MAX_FAILURES: '2' });
    const ip = nextIp();
    const body = newUser({ organization: 'FIA' });
    await request(strict.server).post('/api/auth/register').set('x-forwarded-for', ip).send(body).expect(201);
    const agent = request.agent(strict.server);
    const login = await agent
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .set('x-request-id', 'gw-sign-in-1')
      .send({ email: body.email, password: body.password })
      .expect(200);
    const userId = login.body.user.id as string;
    await agent.post('/api/auth/logout').set('x-forwarded-for', ip).expect(200);
    const wrong = { email: body.email.toUpperCase(), password: 'not the password at all' };
    await request(strict.server).post('/api/auth/login').set('x-forwarded-for', ip).send(wrong).expect(401);
    await request(strict.server).post('/api/auth/login').set('x-forwarded-for', ip).send(wrong).expect(423);
    await request(strict.server)
      .post('/api/auth/login')
      .set('x-forwarded-for', ip)
      .send({ email: body.email, password: body.password })
      .expect(423);

    const mine = (await gatewayAuditEvents(stack)).filter(
      (e) => e.userId === userId || e.detail?.email === body.email.toLowerCase(),
    );
    expect(mine.map((e) => [e.action, e.detail?.reason ?? null])).toEqual([
      ['sign-in', null],
      ['sign-out', null],
      ['sign-in-failed', 'invalid-credentials'],
      ['sign-in-failed', 'invalid-credentials'],
      ['lockout', null],
      ['sign-in-failed', 'locked'],
    ]);
    expect(mine[0]).toMatchObject({ userId, organization: 'FIA', requestId: 'gw-sign-in-1', clientAddress: ip });
    expect(mine[1]).toMatchObject({ userId, organization: 'FIA', clientAddress: ip });
    for (const failed of mine.slice(2)) expect(failed).toMatchObject({ userId: null, organization: null });
    // Never the password.
    expect(JSON.stringify(mine)).not.toContain(body.password);
    expect(JSON.stringify(mine)).not.toContain(wrong.password);
  });
});
