import { TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { goodRow, HEADER, startIngest, userOf, workbook } from './harness.ts';

const h = await startIngest();
const bps = userOf('BPS', 'Betty Police');
const fia = userOf('FIA', 'Fred Intelligence');

const totalOf = async (api: Awaited<ReturnType<typeof h.as>>) =>
  Number((await api.records.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()]);

describe('POST /api/records/batch-upload', () => {
  it('creates the valid rows as the uploader and lists each bad row by its spreadsheet row', async () => {
    const api = await h.as(bps);
    const before = await totalOf(api);
    const file = workbook([goodRow(), goodRow({ 'Suspect Date of Birth': '2099-01-01' }), goodRow()]);
    const res = await api.post('/api/records/batch-upload').attach('file', file, 'incidents.xlsx').expect(200);
    expect(res.body).toEqual({
      success: true,
      totalRecords: 3,
      successfulRecords: 2,
      errors: [
        { row: 3, field: 'suspectDob', message: 'must not be in the future' },
        { row: 3, field: 'suspectDob', message: 'must be before the incident date' },
      ],
    });
    expect(await totalOf(api)).toBe(before + 2);
    const mine = (await api.records.get('/api/records?limit=2').expect(200)).body;
    expect(mine.map((r: { organization: string; createdById: string }) => [r.organization, r.createdById])).toEqual([
      ['BPS', bps.userId],
      ['BPS', bps.userId],
    ]);
  });

  it('with ?async=1 answers 202 {jobId} at once; the job shows progress and its result to the uploader’s agency only', async () => {
    const api = await h.as(bps);
    const rows = Array.from({ length: 40 }, () => goodRow());
    const res = await api
      .post('/api/records/batch-upload?async=1')
      .attach('file', workbook(rows), 'many.xlsx')
      .expect(202);
    const { jobId } = res.body as { jobId: string };
    expect(jobId).toEqual(expect.any(String));
    let job: { state: string; processedRows: number; totalRows: number; result?: unknown } = {} as never;
    await waitUntil(
      'the job done',
      async () => {
        job = (await api.get(`/api/ingest/jobs/${jobId}`).expect(200)).body;
        return job.state === 'completed';
      },
      60_000,
    );
    expect(job).toMatchObject({ state: 'completed', processedRows: 40, totalRows: 40 });
    expect(job.result).toEqual({ success: true, totalRecords: 40, successfulRecords: 40, errors: [] });
    const other = await h.as(fia);
    const hidden = await other.get(`/api/ingest/jobs/${jobId}`).expect(404);
    expect(hidden.body.message).toBe('Upload job not found');
    await other.get('/api/ingest/jobs/no-such-job').expect(404);
  });

  it('a replayed upload creates nothing new: every row’s incident number is taken', async () => {
    const api = await h.as(bps);
    const file = workbook([goodRow(), goodRow()]);
    await api.post('/api/records/batch-upload').attach('file', file, 'a.xlsx').expect(200);
    const before = await totalOf(api);
    const again = await api.post('/api/records/batch-upload').attach('file', file, 'a.xlsx').expect(200);
    expect(again.body).toMatchObject({ success: false, totalRecords: 2, successfulRecords: 0 });
    expect(again.body.errors).toEqual([
      { row: 2, field: 'incidentNumber', message: 'Incident number already exists' },
      { row: 3, field: 'incidentNumber', message: 'Incident number already exists' },
    ]);
    expect(await totalOf(api)).toBe(before);
  });

  it('an incident number repeated inside the file: the first occurrence counts, each later one is the error', async () => {
    const api = await h.as(bps);
    const first = goodRow();
    const repeat = goodRow({ 'Incident Number': first[0] });
    const res = await api
      .post('/api/records/batch-upload')
      .attach('file', workbook([first, goodRow(), repeat]), 'dup.xlsx')
      .expect(200);
    expect(res.body).toMatchObject({ success: true, totalRecords: 3, successfulRecords: 2 });
    expect(res.body.errors).toEqual([{ row: 4, field: 'incidentNumber', message: 'Incident number already exists' }]);

    // The first occurrence counts even when that row is refused for another reason: fixing it and
    // uploading again must not turn up a clash the first upload hid. In any letter case or spacing.
    const bad = goodRow({ 'Suspect Date of Birth': '2031-01-01' });
    const later = goodRow({ 'Incident Number': ` ${String(bad[0]).toLowerCase()} ` });
    const second = await api
      .post('/api/records/batch-upload')
      .attach('file', workbook([bad, later]), 'dup2.xlsx')
      .expect(200);
    expect(second.body).toMatchObject({ success: false, totalRecords: 2, successfulRecords: 0 });
    expect(second.body.errors).toEqual([
      { row: 2, field: 'suspectDob', message: 'must not be in the future' },
      { row: 2, field: 'suspectDob', message: 'must be before the incident date' },
      { row: 3, field: 'incidentNumber', message: 'Incident number already exists' },
    ]);
  });

  it('lists each row whose text holds a hidden character, by the contract schema’s message, and stores text NFC', async () => {
    const api = await h.as(bps);
    const before = await totalOf(api);
    const composed = goodRow({
      'Suspect Name': 'Zoe\u0308 N\u0303u\u0301n\u0303ez',
      'Additional Information': 'Cafe\u0301 meeting.\nSecond line.',
    });
    const rows = [
      goodRow({ 'Suspect Name': 'Jane \u202EdaolpU' }),
      composed,
      goodRow({ 'Incident Number': `UP\u200B-${Date.now()}` }),
      goodRow({ 'Suspect Name': 'Jane\nUpload' }),
      // A cell that cannot be read: the row never reaches the records service, yet the same schema
      // lists its other fields' problems.
      goodRow({ 'Suspect Date of Birth': 'yesterday', 'Suspect Name': 'Jane \u2066Upload' }),
    ];
    const res = await api.post('/api/records/batch-upload').attach('file', workbook(rows), 'hidden.xlsx').expect(200);
    expect(res.body).toEqual({
      success: true,
      totalRecords: 5,
      successfulRecords: 1,
      errors: [
        {
          row: 2,
          field: 'suspectName',
          message:
            'Suspect name must not contain invisible or control characters (found U+202E, a text-direction control)',
        },
        {
          row: 4,
          field: 'incidentNumber',
          message:
            'Incident number must not contain invisible or control characters (found U+200B, a zero-width character)',
        },
        { row: 5, field: 'suspectName', message: 'Suspect name must be a single line (found U+000A, a line break)' },
        { row: 6, field: 'suspectDob', message: 'must be a date (YYYY-MM-DD)' },
        {
          row: 6,
          field: 'suspectName',
          message:
            'Suspect name must not contain invisible or control characters (found U+2066, a text-direction control)',
        },
      ],
    });
    expect(await totalOf(api)).toBe(before + 1);
    const [stored] = (await api.records.get('/api/records?limit=1').expect(200)).body;
    expect(stored).toMatchObject({
      incidentNumber: composed[0],
      suspectName: 'Zo\u00eb \u00d1\u00fa\u00f1ez',
      additionalInfo: 'Caf\u00e9 meeting.\nSecond line.',
    });
  });

  it('refuses, before anything is stored, no file, a wrong name, a body that is not a form and two files', async () => {
    const api = await h.as(bps);
    const before = await h.main.deps.store.uploads.countDocuments();
    const none = await api.post('/api/records/batch-upload').field('note', 'x').expect(400);
    expect(none.body.message).toBe('No File Selected: Please select an Excel file to upload.');
    const csv = await api.post('/api/records/batch-upload').attach('file', Buffer.from('a,b'), 'x.csv').expect(415);
    expect(csv.body.message).toBe('Invalid File Type: Please select an Excel file (.xlsx or .xls)');
    const json = await api.post('/api/records/batch-upload').send({ file: 'x' }).expect(415);
    expect(json.body.message).toMatch(/multipart\/form-data/);
    const two = await api
      .post('/api/records/batch-upload')
      .attach('file', workbook([goodRow()]), 'a.xlsx')
      .attach('file', workbook([goodRow()]), 'b.xlsx')
      .expect(400);
    expect(two.body.message).toBe('Upload one file at a time');
    const fake = await api.post('/api/records/batch-upload').attach('file', Buffer.from('not a zip'), 'x.xlsx');
    expect(fake.status).toBeGreaterThanOrEqual(400);
    expect(fake.status).toBeLessThan(500);
    expect(await h.main.deps.store.uploads.countDocuments()).toBe(before);
  });
});

describe('GET /api/records/template', () => {
  it('is an .xlsx attachment whose header the upload reads, with its example row accepted as is', async () => {
    const api = await h.as(fia);
    const res = await api
      .get('/api/records/template')
      .responseType('blob') // the body as a Buffer
      .expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="nrad-records-template.xlsx"');
    const wb = XLSX.read(res.body as Buffer, { type: 'buffer' });
    expect(wb.SheetNames.length).toBeGreaterThanOrEqual(2);
    const header = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0] as string] as XLSX.WorkSheet, {
      header: 1,
    })[0] as string[];
    expect(header.length).toBe(HEADER.length);
    const before = await totalOf(api);
    const uploaded = await api
      .post('/api/records/batch-upload')
      .attach('file', res.body as Buffer, 'nrad-records-template.xlsx')
      .expect(200);
    expect(uploaded.body).toMatchObject({ success: true, totalRecords: 1, successfulRecords: 1, errors: [] });
    expect(await totalOf(api)).toBe(before + 1);
  });
});
