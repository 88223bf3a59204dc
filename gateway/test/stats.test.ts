import { AdminStatsSchema, CountryStatsSchema, DashboardStatsSchema } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, nextIp, signIn, startAuthStack } from './stack.ts';

/** The stats paths of SPEC §7 through the gateway, with real sessions and real services. */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

const year = new Date().getUTCFullYear();
let n = 0;
const body = (overrides: Record<string, unknown> = {}) => ({
  incidentNumber: `GS-${Date.now().toString(36)}-${++n}`,
  suspectName: 'Marcia Tucker',
  suspectDob: '1981-03-09',
  incidentDate: `${year}-01-02`,
  caseAmount: '900',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
  ...overrides,
});

describe('statistics through the gateway', () => {
  it('counts the agency’s own records, by country, and keeps other agencies’ figures apart', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const zeros = { totalRecords: 0, thisMonth: 0, internationalCases: 0, totalSeizedAmount: '0.00', seizedYear: year };
    expect(DashboardStatsSchema.parse((await customs.agent.get('/api/stats').expect(200)).body)).toEqual(zeros);

    await police.agent
      .post('/api/records')
      .send(body({ seizedAmount: '1000.50' }))
      .expect(201);
    await police.agent
      .post('/api/records')
      .send(body({ internationalNexus: true, country: 'Canada', seizedAmount: '250' }))
      .expect(201);
    const last = await police.agent
      .post('/api/records')
      .send(body({ internationalNexus: true, country: 'Canada', incidentDate: `${year - 1}-12-31`, seizedAmount: '5' }))
      .expect(201);

    await waitUntil('stats readable', async () => {
      const stats = (await police.agent.get('/api/stats').expect(200)).body;
      return stats.totalRecords === 3;
    });
    expect(DashboardStatsSchema.parse((await police.agent.get('/api/stats').expect(200)).body)).toEqual({
      totalRecords: 3,
      thisMonth: 3,
      internationalCases: 2,
      totalSeizedAmount: '1250.50',
      seizedYear: year,
    });
    expect(CountryStatsSchema.parse((await police.agent.get('/api/stats/countries').expect(200)).body)).toEqual([
      { country: 'Canada', count: 2 },
    ]);
    expect((await customs.agent.get('/api/stats').expect(200)).body).toEqual(zeros);
    expect((await customs.agent.get('/api/stats/countries').expect(200)).body).toEqual([]);

    // A delete through the gateway stops counting.
    await police.agent.delete(`/api/records/${last.body.id}`).expect(200);
    await waitUntil('delete counted', async () => {
      return (await police.agent.get('/api/stats').expect(200)).body.totalRecords === 2;
    });
    expect((await police.agent.get('/api/stats/countries').expect(200)).body).toEqual([
      { country: 'Canada', count: 1 },
    ]);
  });

  it('answers the admin counts to ADMIN only, and nothing without a session', async () => {
    const fiu = await signIn(gw.server, { organization: 'FIA' });
    await fiu.agent.post('/api/records').send(body()).expect(201);
    const denied = await fiu.agent.get('/api/admin/stats').expect(403);
    expect(denied.body.code).toBe('FORBIDDEN');

    const admin = request.agent(gw.server);
    await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
    let counts = { bpsRecords: 0, fiaRecords: 0, cusRecords: 0 };
    await waitUntil('admin counts readable', async () => {
      counts = AdminStatsSchema.parse((await admin.get('/api/admin/stats').expect(200)).body);
      return counts.fiaRecords >= 1;
    });
    expect(counts.fiaRecords).toBe(1);
    const all = DashboardStatsSchema.parse((await admin.get('/api/stats').expect(200)).body);
    expect(all.totalRecords).toBe(counts.bpsRecords + counts.fiaRecords + counts.cusRecords);

    for (const path of ['/api/stats', '/api/stats/countries', '/api/admin/stats']) {
      expect((await request(gw.server).get(path)).status, path).toBe(401);
    }
  });
});
