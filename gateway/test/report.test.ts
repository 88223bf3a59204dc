import { GeneratedReportSchema, LinkSummarySchema, ReportListSchema, StatsBreakdownSchema } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { signIn, startAuthStack } from './stack.ts';

/** Reports and the figures they are written from, through the gateway with real sessions and services. */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

const year = new Date().getUTCFullYear();
const body = (n: number) => ({
  incidentNumber: `GR-${Date.now().toString(36)}-${n}`,
  suspectName: `Report Subject ${n}`,
  suspectDob: '1979-04-05',
  incidentDate: `${year}-02-03`,
  caseAmount: '700',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
});

describe('reports through the gateway', () => {
  it('writes an agency’s report from its figures, lists it and serves its file; another agency gets 404', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    await police.agent.post('/api/records').send(body(1)).expect(201);
    await police.agent.post('/api/records').send(body(2)).expect(201);
    await waitUntil('stats applied', async () => {
      return (await police.agent.get('/api/stats').expect(200)).body.totalRecords === 2;
    });
    const breakdown = StatsBreakdownSchema.parse((await police.agent.get('/api/stats/breakdown').expect(200)).body);
    expect(breakdown).toMatchObject({ scope: 'BPS', totalRecords: 2 });
    expect(LinkSummarySchema.parse((await police.agent.get('/api/links/summary').expect(200)).body)).toEqual({
      total: 0,
      pairs: [],
    });

    const res = await police.agent.post('/api/generate-report').send({ parameters: 'Quarterly' }).expect(200);
    const report = GeneratedReportSchema.parse(res.body);
    expect(report.model).toBe('template');
    expect(report.report).toContain('- Records: 2');

    const list = ReportListSchema.parse((await police.agent.get('/api/reports').expect(200)).body);
    expect(list.items.map((r) => r.id)).toEqual([report.id]);
    await police.agent.get(`/api/reports/${report.id}`).expect(200);
    const file = await police.agent.get(`/api/reports/${report.id}/markdown`).expect(200);
    expect(file.text).toBe(report.report);
    const job = await police.agent.get(`/api/reports/jobs/${report.id}`).expect(200);
    expect(job.body).toMatchObject({ state: 'completed', stage: 'done' });

    await customs.agent.get(`/api/reports/${report.id}`).expect(404);
    await customs.agent.get(`/api/reports/${report.id}/markdown`).expect(404);
    await customs.agent.get(`/api/reports/jobs/${report.id}`).expect(404);
    expect(ReportListSchema.parse((await customs.agent.get('/api/reports').expect(200)).body).total).toBe(0);
  });

  it('answers 401 on every report and figures path without a session', async () => {
    const anonymous = request(gw.server);
    await anonymous.post('/api/generate-report').send({}).expect(401);
    for (const path of ['/api/reports', '/api/reports/x', '/api/reports/x/markdown', '/api/reports/jobs/x']) {
      await anonymous.get(path).expect(401);
    }
    await anonymous.get('/api/stats/breakdown').expect(401);
    await anonymous.get('/api/links/summary').expect(401);
  });
});
