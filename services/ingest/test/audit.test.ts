import { REQUEST_ID_HEADER } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { goodRow, startIngest, userOf, workbook } from './harness.ts';

const h = await startIngest();
const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Fred Intelligence');

describe('audit events of the ingest service (issue 21)', () => {
  it('records an upload accepted and completed as the uploader, with the request id, client address and created records', async () => {
    const api = await h.as(bps);
    const first = goodRow();
    const file = workbook([
      first,
      goodRow(),
      goodRow({ 'Suspect Date of Birth': '2099-01-01' }),
      goodRow({ 'Incident Number': first[0] }),
    ]);
    const res = await api
      .post('/api/records/batch-upload?async=1')
      .set(REQUEST_ID_HEADER, 'req-upload-1')
      .set('x-forwarded-for', '10.6.6.1')
      .attach('file', file, 'incidents.xlsx')
      .expect(202);
    const { jobId } = res.body as { jobId: string };
    let job: { state: string; result?: { successfulRecords: number } } = { state: '' };
    for (let i = 0; i < 300 && job.state !== 'completed'; i++) {
      job = (await api.get(`/api/ingest/jobs/${jobId}`).expect(200)).body;
      if (job.state !== 'completed') await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.result?.successfulRecords).toBe(2);
    // The template names no record: nothing.
    await api.get('/api/records/template').expect(200);
    // Another agency's job: not found, and recorded as a refusal.
    await (await h.as(fia))
      .get(`/api/ingest/jobs/${jobId}`)
      .set(REQUEST_ID_HEADER, 'req-refused-1')
      .set('x-forwarded-for', '10.6.6.2')
      .expect(404);
    // A job nobody has is no agency's: a 404 without a refusal.
    await (await h.as(fia)).get('/api/ingest/jobs/no-such-job').expect(404);

    const all = await h.auditEvents();
    const events = all.filter((e) => e.service === 'ingest');
    expect(events.map((e) => `${e.action} ${e.detail?.what ?? e.detail?.status}`).sort()).toEqual([
      'access.refused 404',
      'upload accepted',
      'upload completed',
    ]);
    const actor = { userId: bps.userId, organization: 'BPS', requestId: 'req-upload-1', clientAddress: '10.6.6.1' };
    const accepted = events.find((e) => e.detail?.what === 'accepted');
    expect(accepted).toMatchObject({
      ...actor,
      recordIds: [],
      detail: { what: 'accepted', jobId, fileName: 'incidents.xlsx', size: file.length },
      subject: `${h.t.subject('audit')}.upload`,
    });
    const completed = events.find((e) => e.detail?.what === 'completed');
    expect(completed).toMatchObject({
      ...actor,
      detail: { what: 'completed', jobId, rows: 4, created: 2, invalid: 1, duplicates: 1 },
    });
    // The records the upload created, as the records service recorded their creation (through the
    // upload, with the upload request's id).
    const creates = all.filter((e) => e.action === 'record.create' && e.requestId === 'req-upload-1');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ userId: bps.userId, organization: 'BPS', detail: { via: 'upload' } });
    expect([...(completed?.recordIds ?? [])].sort()).toEqual([...(creates[0]?.recordIds ?? [])].sort());
    expect(completed?.recordIds).toHaveLength(2);
    expect(events.find((e) => e.action === 'access.refused')).toMatchObject({
      userId: fia.userId,
      organization: 'FIA',
      requestId: 'req-refused-1',
      clientAddress: '10.6.6.2',
      recordIds: [],
      detail: { status: 404, jobId },
    });
    for (const e of events) expect(e.msgId).toBe(e.id);
  });

  it('names at most 1,000 records an event: a larger upload completes in several events of one id', async () => {
    const api = await h.as(bps);
    const rows = Array.from({ length: 1001 }, () => goodRow());
    const res = await api
      .post('/api/records/batch-upload')
      .set(REQUEST_ID_HEADER, 'req-upload-big')
      .attach('file', workbook(rows), 'big.xlsx')
      .expect(200);
    expect(res.body.successfulRecords).toBe(1001);
    const completed = (await h.auditEvents()).filter(
      (e) => e.service === 'ingest' && e.detail?.what === 'completed' && e.requestId === 'req-upload-big',
    );
    expect(completed.map((e) => e.recordIds.length).sort((a, b) => a - b)).toEqual([1, 1000]);
    const [one, two] = [...completed].sort((a, b) => a.id.length - b.id.length);
    expect(two?.id).toBe(`${one?.id}-2`);
    expect(new Set(completed.flatMap((e) => e.recordIds)).size).toBe(1001);
    for (const e of completed) expect(e.detail).toMatchObject({ rows: 1001, created: 1001, invalid: 0, duplicates: 0 });
  });
});
