import { type AuditEvent, AuditPageSchema, OperationsSchema } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { readAuditStream } from '@nrad/service-kit/test-audit';
import { Types } from 'mongoose';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, nextIp, signIn, startAuthStack } from './stack.ts';

/**
 * Per-user limits and security alerts (issue 34) through the gateway, with real sessions, Redis,
 * services and the audit stream.
 */
let stack: Awaited<ReturnType<typeof startAuthStack>>;

beforeAll(async () => {
  stack = await startAuthStack();
});

/** ADMIN signed in on a gateway. */
async function adminOn(server: ReturnType<typeof stack.gateway>['server']) {
  const admin = request.agent(server);
  await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
  return admin;
}

/** Every event of the namespace's audit stream (each is published before its request is answered). */
function auditEvents(): Promise<AuditEvent[]> {
  return readAuditStream(stack.bus, stack.auditConfig.AUDIT_STREAM);
}

const check = (suspectName: string) => ({
  namlcOrganization: 'Bermuda Police Service',
  suspectName,
  suspectDob: '1985-12-09',
  incidentDate: '2025-02-14',
  caseAmount: '12500',
});

/** "… Please try again in 42 seconds." with Retry-After 42 (whole seconds, within the minute). */
function expectRefusal(res: request.Response, what: string) {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.body).toEqual({
    message: `Too many ${what}. Please try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    code: 'RATE_LIMITED',
  });
}

describe('per-user limits', () => {
  it('answers the 31st NAMLC check of a minute 429 without reaching the linking service; others are not affected', async () => {
    const gw = stack.gateway();
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const other = await signIn(gw.server, { organization: 'CUS' });
    for (let i = 1; i <= 30; i++) {
      await customs.agent
        .post('/api/records/check-namlc-matches')
        .send(check(`Limit Subject ${i}`))
        .expect(200);
    }
    const refused = await customs.agent
      .post('/api/records/check-namlc-matches')
      .set('x-request-id', `refused-namlc-${customs.user.id}`)
      .send(check('Limit Subject Refused'));
    expectRefusal(refused, 'NAMLC checks');
    // Another user's checks count on their own.
    await other.agent.post('/api/records/check-namlc-matches').send(check('Other Subject')).expect(200);

    const events = await auditEvents();
    const checks = events.filter((e) => e.action === 'namlc.check' && e.userId === customs.user.id);
    expect(checks).toHaveLength(30); // the linking service saw 30 checks, not 31
    const ofRefused = events.filter((e) => e.requestId === `refused-namlc-${customs.user.id}`);
    expect(ofRefused).toEqual([
      expect.objectContaining({
        action: 'rate.limited',
        service: 'gateway',
        userId: customs.user.id,
        organization: 'CUS',
        recordIds: [],
        detail: {
          category: 'namlc-checks',
          perMinute: 30,
          path: '/api/records/check-namlc-matches',
          retryAfter: Number(refused.headers['retry-after']),
        },
      }),
    ]);
    expect(events.some((e) => e.action === 'rate.limited' && e.userId === other.user.id)).toBe(false);
  });

  it('limits searches as configured and never records the query string', async () => {
    const gw = stack.gateway({ USER_LIMIT_SEARCHES_PER_MINUTE: '3' });
    const police = await signIn(gw.server, { organization: 'BPS' });
    for (let i = 0; i < 3; i++) {
      await police.agent.post('/api/records/search?limit=5').send({ suspectName: 'Nobody Here' }).expect(200);
    }
    const refused = await police.agent
      .post('/api/records/search?limit=5&suspectName=Secret%20Name')
      .send({ suspectName: 'Secret Name' });
    expectRefusal(refused, 'searches');
    // Other paths of the user are not searches: a list page and a create go through.
    await police.agent.get('/api/records?limit=1').expect(200);

    const mine = (await auditEvents()).filter((e) => e.userId === police.user.id);
    const limited = mine.filter((e) => e.action === 'rate.limited');
    expect(limited.map((e) => e.detail)).toEqual([
      { category: 'searches', perMinute: 3, path: '/api/records/search', retryAfter: expect.any(Number) },
    ]);
    expect(JSON.stringify(limited)).not.toContain('Secret');
    expect(mine.filter((e) => e.action === 'record.search')).toHaveLength(3);
  });

  it('counts list pages of ADMIN too, and a setting of 0 turns a limit off', async () => {
    const gw = stack.gateway({ USER_LIMIT_LIST_PAGES_PER_MINUTE: '2', USER_LIMIT_SEARCHES_PER_MINUTE: '0' });
    const admin = await adminOn(gw.server);
    await admin.get('/api/admin/records?limit=1').expect(200);
    await admin.get('/api/records/deleted?limit=1').expect(200);
    expectRefusal(await admin.get('/api/records?limit=1'), 'list pages');
    // Not list pages: figures and the operations console.
    await admin.get('/api/admin/stats').expect(200);
    for (let i = 0; i < 5; i++) await admin.post('/api/records/search').send({ freeText: 'nothing' }).expect(200);
  });
});

describe('security alerts', () => {
  it('raises one alert for repeated link attempts answered 404, shown to ADMIN in the operations console and the trail', async () => {
    const gw = stack.gateway();
    const admin = await adminOn(gw.server);
    const customs = await signIn(gw.server, { organization: 'CUS' });
    // Ids made a day ago: the linking service waits a moment for a record made just now to arrive.
    const dayAgo = (Math.floor(Date.now() / 1000) - 86_400).toString(16);
    const id = () => `${dayAgo}${new Types.ObjectId().toHexString().slice(8)}`;
    for (let i = 0; i < 12; i++) {
      await customs.agent.post('/api/records/link').send({ sourceRecordId: id(), linkedRecordId: id() }).expect(404);
    }
    const ops = OperationsSchema.parse((await admin.get('/api/admin/operations').expect(200)).body);
    const alerts = ops.alerts.filter((a) => a.userId === customs.user.id);
    expect(alerts).toEqual([
      {
        at: expect.any(String),
        userId: customs.user.id,
        organization: 'CUS',
        kind: 'link-refusals',
        count: 10,
        windowSeconds: 600,
        path: '/api/records/link',
      },
    ]);
    expect(ops.problems).toEqual([]);

    const raised = (await auditEvents()).filter((e) => e.action === 'security.alert' && e.userId === customs.user.id);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({
      service: 'gateway',
      organization: 'CUS',
      detail: {
        userId: customs.user.id,
        organization: 'CUS',
        kind: 'link-refusals',
        count: 10,
        windowSeconds: 600,
        path: '/api/records/link',
      },
    });
    // The audit service stores it: ADMIN finds it in the user's trail.
    await waitUntil('the alert in the trail', async () => {
      const page = AuditPageSchema.parse((await admin.get(`/api/audit?userId=${customs.user.id}`).expect(200)).body);
      return page.items.some((i) => i.action === 'security.alert');
    });
    const page = AuditPageSchema.parse(
      (await admin.get(`/api/audit?userId=${customs.user.id}&limit=200`).expect(200)).body,
    );
    expect(page.items.filter((i) => i.action === 'security.alert')).toHaveLength(1);
  });

  it('raises one alert when a user keeps hitting a limit, newest first beside the others', async () => {
    const gw = stack.gateway({ USER_LIMIT_SEARCHES_PER_MINUTE: '1', ALERT_RATE_LIMITS_WINDOW_MINUTES: '5' });
    const admin = await adminOn(gw.server);
    const police = await signIn(gw.server, { organization: 'BPS' });
    await police.agent.post('/api/records/search').send({ freeText: 'x' }).expect(200);
    for (let i = 0; i < 4; i++) expectRefusal(await police.agent.post('/api/records/search').send({}), 'searches');

    const ops = OperationsSchema.parse((await admin.get('/api/admin/operations').expect(200)).body);
    expect(ops.alerts.filter((a) => a.userId === police.user.id)).toEqual([
      {
        at: expect.any(String),
        userId: police.user.id,
        organization: 'BPS',
        kind: 'rate-limits',
        count: 3,
        windowSeconds: 300,
        path: '/api/records/search',
      },
    ]);
    // Newest first: this alert comes before the link-refusals one of the test above.
    expect(ops.alerts[0]?.userId).toBe(police.user.id);
    const times = ops.alerts.map((a) => a.at);
    expect([...times].sort().reverse()).toEqual(times);

    const mine = (await auditEvents()).filter((e) => e.userId === police.user.id);
    expect(mine.filter((e) => e.action === 'rate.limited')).toHaveLength(4);
    expect(mine.filter((e) => e.action === 'security.alert')).toHaveLength(1);
  });
});
