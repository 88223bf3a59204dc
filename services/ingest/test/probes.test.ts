import { INCIDENT_NUMBER_TAKEN } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { goodRow, startIngest, userOf, workbook } from './harness.ts';

// Incident numbers as an oracle (issue 34, docs/adr/0015): a budget of 3 numbers of other agencies
// per user; batches of 3 rows with 3 import requests in flight, so the stop is not a batch's edge.
const LIMIT = 3;
const h = await startIngest(
  { INGEST_BATCH_ROWS: '3', INGEST_BATCHES_IN_FLIGHT: '3' },
  { INCIDENT_PROBE_LIMIT: String(LIMIT) },
);

type Api = Awaited<ReturnType<typeof h.as>>;

/** Creates `n` records as the user (a single create each): their incident numbers. */
async function recordsOf(api: Api, n: number): Promise<string[]> {
  const numbers: string[] = [];
  for (let i = 0; i < n; i++) {
    const row = goodRow();
    const number = String(row[0]);
    await api.records
      .post('/api/records')
      .send({
        incidentNumber: number,
        suspectName: 'Held Elsewhere',
        suspectDob: '1970-01-01',
        incidentDate: '2024-01-01',
        caseAmount: '10.00',
        sourceOfRecord: 'Police Investigation',
        internationalNexus: false,
        cyberAssisted: false,
      })
      .expect(201);
    numbers.push(number);
  }
  return numbers;
}

/** The user's agency's records whose incident number starts with `prefix`. */
async function createdWith(api: Api, prefix: string): Promise<string[]> {
  const res = await api.records.post('/api/records/search?limit=100').send({ incidentNumber: prefix }).expect(200);
  return (res.body as Array<{ incidentNumber: string }>).map((r) => r.incidentNumber).sort();
}

const STOPPED =
  /^Stopped at row (\d+): too many incident numbers already used by other agencies; the rows from \1 on were not imported\. Try again after (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC\.$/;

describe('an upload of incident numbers other agencies hold', () => {
  it('stops at the row after the one that spends the budget: the rows before are created, none after', async () => {
    const theirs = await recordsOf(await h.as(userOf('FIA', 'Fiona Holder')), LIMIT + 2);
    const uploader = userOf('BPS', 'Ursula Uploader');
    const api = await h.as(uploader);
    const prefix = `PROBE-${Date.now().toString(36)}`;
    const free = (row: number) => `${prefix}-${row}`;
    // Rows 2..14: theirs at rows 4, 6 and 8 (the third spends the budget), and at 10 and 12.
    const at = new Map([
      [4, theirs[0]],
      [6, theirs[1]],
      [8, theirs[2]],
      [10, theirs[3]],
      [12, theirs[4]],
    ]);
    const rows = Array.from({ length: 13 }, (_, i) => goodRow({ 'Incident Number': at.get(i + 2) ?? free(i + 2) }));
    const res = await api.post('/api/records/batch-upload').attach('file', workbook(rows), 'probe.xlsx').expect(200);
    expect(res.body).toMatchObject({ success: true, totalRecords: 13, successfulRecords: 4 });
    expect(res.body.errors).toEqual(
      [4, 6, 8].map((row) => ({ row, field: 'incidentNumber', message: INCIDENT_NUMBER_TAKEN })),
    );
    expect(res.body.message).toMatch(STOPPED);
    expect(STOPPED.exec(res.body.message)?.[1]).toBe('9');
    // Rows 2, 3, 5 and 7 created; nothing from row 9 on.
    expect(await createdWith(api, prefix)).toEqual([2, 3, 5, 7].map(free).sort());

    // The plan is kept with the upload: a retried job stops at the same row.
    const jobs = await h.main.deps.store.uploads.find({ 'uploader.userId': uploader.userId }).lean();
    expect(jobs.map((j) => j.plan?.stopAt)).toEqual([9]);

    // The budget is spent: the user's next upload stops at its first row, whatever it holds.
    const again = await api
      .post('/api/records/batch-upload')
      .attach(
        'file',
        workbook([goodRow({ 'Incident Number': free(20) }), goodRow({ 'Incident Number': free(21) })]),
        'b.xlsx',
      )
      .expect(200);
    expect(again.body).toMatchObject({ success: false, totalRecords: 2, successfulRecords: 0, errors: [] });
    expect(STOPPED.exec(again.body.message)?.[1]).toBe('2');
    expect(await createdWith(api, prefix)).toEqual([2, 3, 5, 7].map(free).sort());

    // The completion's audit event says where it stopped.
    const completed = (await h.auditEvents()).filter(
      (e) => e.service === 'ingest' && e.detail?.what === 'completed' && e.userId === uploader.userId,
    );
    expect(completed.map((e) => e.detail)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rows: 13, created: 4, duplicates: 3, invalid: 0, notImported: 6, stoppedAtRow: 9 }),
        expect.objectContaining({ rows: 2, created: 0, duplicates: 0, invalid: 0, notImported: 2, stoppedAtRow: 2 }),
      ]),
    );
  });

  it('another user is unaffected, and numbers of the uploader’s own agency do not count', async () => {
    const theirs = await recordsOf(await h.as(userOf('CUS', 'Carl Holder')), 1);
    const colleague = await h.as(userOf('FIA', 'Colin Colleague'));
    const ours = await recordsOf(colleague, LIMIT + 2);
    const api = await h.as(userOf('FIA', 'Fred Uploader'));
    const prefix = `OWN-${Date.now().toString(36)}`;
    // Every number of the own agency, then one of another agency's (the budget's first), then free ones.
    const numbers = [...ours, theirs[0], `${prefix}-a`, `${prefix}-b`];
    const res = await api
      .post('/api/records/batch-upload')
      .attach('file', workbook(numbers.map((n) => goodRow({ 'Incident Number': n }))), 'own.xlsx')
      .expect(200);
    expect(res.body).toMatchObject({ success: true, totalRecords: LIMIT + 5, successfulRecords: 2 });
    expect(res.body.message).toBeUndefined();
    expect(res.body.errors).toHaveLength(LIMIT + 3);
    expect(await createdWith(api, prefix)).toEqual([`${prefix}-a`, `${prefix}-b`]);
  });
});
