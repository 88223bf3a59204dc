import { TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { encryptedXlsx, workbookOf, zipBomb } from './fixtures/hostile-files.ts';
import { goodRow, HEADER, startIngest, userOf, workbook } from './harness.ts';

// Small limits, so each is reached with a small file.
const h = await startIngest({ INGEST_MAX_ROWS: '5', INGEST_MAX_CELL_CHARS: '100', INGEST_MAX_UNCOMPRESSED_MB: '50' });
const cus = userOf('CUS', 'Cora Customs');
const api = await h.as(cus);

/** What is stored: records of the agency, uploads and stored file chunks. */
async function stored() {
  const records = Number(
    (await api.records.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()],
  );
  const { uploads, chunks } = h.main.deps.store;
  return { records, uploads: await uploads.countDocuments(), chunks: await chunks.countDocuments() };
}

const upload = (bytes: Uint8Array, name = 'file.xlsx') =>
  api.post('/api/records/batch-upload').attach('file', Buffer.from(bytes), name);

describe('hostile and broken files', () => {
  it('a zip bomb (a small file unpacking to 200 MB) is refused before parsing, and nothing is stored', async () => {
    const before = await stored();
    const bomb = await zipBomb(200);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await upload(bomb).expect(413);
    expect(res.body.message).toBe(
      'The workbook is too large once unpacked (more than 50 MB); split it into smaller files.',
    );
    expect(await stored()).toEqual(before);
  });

  it('a password-protected workbook and a damaged one get clear messages, and nothing is stored', async () => {
    const before = await stored();
    const locked = await upload(encryptedXlsx()).expect(400);
    expect(locked.body.message).toBe(
      'The workbook is password-protected: save it without a password and upload it again.',
    );
    const whole = workbook([goodRow()]);
    const damaged = await upload(whole.subarray(0, Math.floor(whole.length / 2))).expect(400);
    expect(damaged.body.message).toBe('The file is damaged or not a valid Excel workbook.');
    expect(await stored()).toEqual(before);
  });

  it('more rows than the limit, an empty sheet and a header alone: the result says so and no record is created', async () => {
    const before = (await stored()).records;
    const tooMany = await upload(workbook(Array.from({ length: 6 }, () => goodRow()))).expect(200);
    expect(tooMany.body).toEqual({
      success: false,
      totalRecords: 0,
      successfulRecords: 0,
      errors: [],
      message: 'The file has more than 5 rows; split it into files of at most 5 rows.',
    });
    const empty = await upload(workbookOf([])).expect(200);
    expect(empty.body.message).toBe('The file is empty: it has no header row.');
    const headerOnly = await upload(workbook([])).expect(200);
    expect(headerOnly.body.message).toBe('The file has no records below the header row.');
    expect((await stored()).records).toBe(before);
  });

  it('__proto__ and constructor as headers and sheet names are harmless; a cell over the length limit fails its row only', async () => {
    const before = (await stored()).records;
    const header = [...HEADER, '__proto__', 'constructor', 'prototype'];
    const rows = [
      [...goodRow(), 'x', 'y', 'z'],
      [...goodRow({ 'Additional Information': 'a'.repeat(101) }), 'x', 'y', 'z'],
    ];
    const file = workbookOf([header, ...rows] as never, {
      sheetName: 'constructor',
      before: [['__proto__', []]],
    });
    const res = await upload(file).expect(200);
    expect(res.body).toEqual({
      success: true,
      totalRecords: 2,
      successfulRecords: 1,
      errors: [{ row: 3, field: 'additionalInfo', message: 'the cell is longer than 100 characters' }],
    });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect((await stored()).records).toBe(before + 1);
  });
});
