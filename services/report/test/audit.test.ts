import { REQUEST_ID_HEADER } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { startReports, userOf } from './harness.ts';

const h = await startReports();
const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Frank Intelligence');
const admin = userOf('ADMIN', 'Ada Admin');

describe('audit events of the report service (issue 21)', () => {
  it('records a report asked for and each read of it as the reader, and attempts on another agency’s', async () => {
    await h.create(bps);
    await h.settled();
    const api = await h.as(bps);
    const asked = await api
      .post('/api/generate-report')
      .set(REQUEST_ID_HEADER, 'req-report-1')
      .set('x-forwarded-for', '10.7.7.1')
      .send({ parameters: 'Focus on fraud' })
      .expect(200);
    const id = asked.body.id as string;
    await api
      .get(`/api/reports/${id}`)
      .set(REQUEST_ID_HEADER, 'req-read-1')
      .set('x-forwarded-for', '10.7.7.2')
      .expect(200);
    await api.get(`/api/reports/${id}/markdown`).set(REQUEST_ID_HEADER, 'req-markdown-1').expect(200);
    // The list shows who asked what, never a report: not recorded.
    await api.get('/api/reports').expect(200);
    // Another agency's report and job: not found, and recorded as refusals.
    const other = await h.as(fia);
    await other
      .get(`/api/reports/${id}`)
      .set(REQUEST_ID_HEADER, 'req-refused-1')
      .set('x-forwarded-for', '10.7.7.3')
      .expect(404);
    await other.get(`/api/reports/jobs/${id}`).expect(404);
    // An id nobody has is no agency's: a 404 without a refusal.
    await other.get('/api/reports/0123456789abcdef01234567').expect(404);

    const events = await h.auditEvents();
    expect(events.map((e) => `${e.action} ${e.detail?.what ?? e.detail?.status}`).sort()).toEqual([
      'access.refused 404',
      'access.refused 404',
      'report markdown',
      'report read',
      'report request',
    ]);
    const what = (w: string) => events.find((e) => e.detail?.what === w);
    expect(what('request')).toMatchObject({
      userId: bps.userId,
      organization: 'BPS',
      requestId: 'req-report-1',
      clientAddress: '10.7.7.1',
      recordIds: [],
      service: 'report',
      detail: { what: 'request', jobId: id, scope: 'BPS', parameters: 'Focus on fraud' },
      subject: `${h.t.subject('audit')}.report`,
    });
    expect(what('read')).toMatchObject({
      userId: bps.userId,
      organization: 'BPS',
      requestId: 'req-read-1',
      clientAddress: '10.7.7.2',
      detail: { what: 'read', reportId: id },
    });
    expect(what('markdown')).toMatchObject({
      userId: bps.userId,
      requestId: 'req-markdown-1',
      detail: { reportId: id },
    });
    const refused = events.filter((e) => e.action === 'access.refused');
    for (const e of refused) expect(e).toMatchObject({ userId: fia.userId, organization: 'FIA', recordIds: [] });
    expect(refused.find((e) => e.detail?.reportId)).toMatchObject({
      requestId: 'req-refused-1',
      clientAddress: '10.7.7.3',
      detail: { status: 404, reportId: id },
    });
    expect(refused.find((e) => e.detail?.jobId)?.detail).toEqual({ status: 404, jobId: id });
    for (const e of events) expect(e.msgId).toBe(e.id);
  });

  it('records a report asked for in the background, and its job read once it carries the report', async () => {
    const before = (await h.auditEvents()).length;
    const api = await h.as(admin);
    const long = `Look at ${'everything '.repeat(80)}`;
    const { jobId } = (
      await api
        .post('/api/generate-report?async=1')
        .set(REQUEST_ID_HEADER, 'req-report-2')
        .send({ parameters: long })
        .expect(202)
    ).body as { jobId: string };
    const { job } = await h.finish(admin, jobId);
    expect(job.state).toBe('completed');

    const events = (await h.auditEvents()).slice(before);
    expect(events.map((e) => `${e.action} ${e.detail?.what}`).sort()).toEqual(['report job', 'report request']);
    expect(events.find((e) => e.detail?.what === 'request')).toMatchObject({
      userId: admin.userId,
      organization: 'ADMIN',
      requestId: 'req-report-2',
      detail: { jobId, scope: 'ALL', parameters: long.trim().slice(0, 500) },
    });
    expect(events.find((e) => e.detail?.what === 'job')).toMatchObject({
      userId: admin.userId,
      detail: { what: 'job', reportId: jobId },
    });
  });
});
