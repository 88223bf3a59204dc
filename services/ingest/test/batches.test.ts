import { describe, expect, it } from 'vitest';
import { goodRow, startIngest, userOf, workbook } from './harness.ts';

// Batches of 3 rows, 3 import requests in flight: answers come back in any order.
const h = await startIngest({ INGEST_BATCH_ROWS: '3', INGEST_BATCHES_IN_FLIGHT: '3' });
const bps = userOf('BPS', 'Betty Police');

describe('an upload of many batches with several import requests in flight', () => {
  it('creates every valid row once and lists the errors in row order', async () => {
    const api = await h.as(bps);
    // Spreadsheet rows 2..26; rows 4, 9, 10, 17 and 26 have a date of birth in the future.
    const bad = new Set([4, 9, 10, 17, 26]);
    // One prefix for the file's numbers (goodRow's own carry the time, which may tick over mid-file).
    const prefix = `BATCH-${Date.now().toString(36)}`;
    const rows = Array.from({ length: 25 }, (_, i) =>
      goodRow({
        'Incident Number': `${prefix}-${i + 2}`,
        ...(bad.has(i + 2) ? { 'Suspect Date of Birth': '2099-01-01' } : {}),
      }),
    );
    const res = await api.post('/api/records/batch-upload').attach('file', workbook(rows), 'batches.xlsx').expect(200);
    expect(res.body.totalRecords).toBe(25);
    expect(res.body.successfulRecords).toBe(20);
    const rowsOfErrors = (res.body.errors as Array<{ row: number; field: string }>).map((e) => e.row);
    expect(rowsOfErrors).toEqual([4, 4, 9, 9, 10, 10, 17, 17, 26, 26]);

    const numbers = rows.map((r) => String(r[0]));
    const found = await api.records.post('/api/records/search?limit=100').send({ incidentNumber: prefix }).expect(200);
    const created = new Set((found.body as Array<{ incidentNumber: string }>).map((r) => r.incidentNumber));
    expect(numbers.filter((n) => created.has(n))).toEqual(numbers.filter((_, i) => !bad.has(i + 2)));
  });
});
