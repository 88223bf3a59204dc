import { beforeAll, describe, expect, it } from 'vitest';
import { cellBomb, workbookOf, zipArchive, zipParts } from '../../test/fixtures/hostile-files.ts';
import { countCells, declaredSpan, spanOfRef } from './cell-count.ts';
import { TEMPLATE_COLUMNS } from './columns.ts';
import { checkUpload, readZipDirectory, UPLOAD_MESSAGES, UploadRefused } from './file-check.ts';
import { readUploadRows } from './upload-rows.ts';
import { readRows, WorkbookRefused } from './workbook.ts';

const MB = 1024 * 1024;
const count = (bytes: Uint8Array, maxCells: number) => countCells(bytes, readZipDirectory(bytes, 250 * MB), maxCells);
const header = TEMPLATE_COLUMNS.map((c) => c.title);
/** A valid row of the template's 15 columns. */
const row = (n: number) => [
  `N-${n}`,
  'Ann Lee',
  '1980-01-01',
  '2020-01-01',
  1,
  0,
  0,
  'Police Investigation',
  '',
  'No',
  'No',
  '',
  '',
  '',
  '',
];

describe('a sheet’s span', () => {
  it('is rows × columns of a range, a single cell, absolute references; Excel’s sheet at most', () => {
    expect(spanOfRef('A1:O100001')).toEqual({ rows: 100_001, columns: 15 });
    expect(spanOfRef('B2')).toEqual({ rows: 1, columns: 1 });
    expect(spanOfRef('$A$1:$CV$10')).toEqual({ rows: 10, columns: 100 });
    expect(spanOfRef('C5:A1')).toEqual({ rows: 5, columns: 3 });
    expect(spanOfRef('A1:ZZZ9999999')).toEqual({ rows: 1_048_576, columns: 16_384 });
    for (const bad of ['', 'A', '1:2', 'A1:', 'AAAA1', 'A1:B2:C3']) expect(spanOfRef(bad), bad).toBeUndefined();
  });

  it('is read from the `<dimension>` at a sheet’s start, with or without a namespace prefix', () => {
    expect(declaredSpan('<worksheet><sheetPr/><dimension ref="A1:CV100001"/><sheetData>')).toEqual({
      rows: 100_001,
      columns: 100,
    });
    expect(declaredSpan("<x:worksheet><x:dimension ref='A1:B3' /></x:worksheet>")).toEqual({ rows: 3, columns: 2 });
    expect(declaredSpan('<worksheet><sheetData>')).toBeUndefined();
  });
});

describe('counting the cells of an .xlsx before it is parsed (issue 37)', () => {
  let bomb: Uint8Array;
  beforeAll(async () => {
    bomb = await cellBomb(100_000, 100, false);
  });

  it('counts every cell of every part, as SheetJS would read them', async () => {
    const file = workbookOf([header, ...Array.from({ length: 300 }, (_, i) => row(i))]);
    expect(await count(file, 10_000)).toMatchObject({ cells: 301 * 15, declared: 301 * 15 });
    // A namespace prefix, a cell with no value, a `<col>` and a `<color>` (not cells).
    const parts = zipParts(file).map((p) =>
      p.name === 'xl/worksheets/sheet1.xml'
        ? {
            ...p,
            data: new TextEncoder().encode(
              '<x:worksheet><x:cols><x:col min="1"/></x:cols><x:sheetData><x:row><x:c r="A1"><x:v>1</x:v></x:c><x:c r="B1"/><x:c\tr="C1">' +
                '<x:v>2</x:v></x:c></x:row></x:sheetData><x:color rgb="1"/></x:worksheet>',
            ),
          }
        : p,
    );
    expect(await count(zipArchive(parts), 10_000)).toMatchObject({ cells: 3, declared: 0 });
  });

  it('stops at the bound: a 0.5 MB file of 10,000,000 cells without a dimension', async () => {
    expect(bomb.length).toBeLessThan(MB);
    const found = await count(bomb, 2_000_000);
    expect(found.cells).toBeGreaterThan(2_000_000);
    expect(found.cells).toBeLessThan(2_100_000);
    expect(found.declared).toBe(0);
    // Tags cut between two chunks of the stream are each counted once.
    expect((await count(bomb, 20_000_000)).cells).toBe(10_000_000);
  });

  it('refuses a workbook whose cells or declared span pass the bound, before SheetJS sees it', async () => {
    const limits = { maxRows: 100_000, maxCellChars: 10_000, maxCells: 2_000_000, maxUncompressedBytes: 250 * MB };
    await expect(readUploadRows(bomb, 'xlsx', limits)).rejects.toThrow(
      new WorkbookRefused(UPLOAD_MESSAGES.tooManyCells(2_000_000)),
    );
    const claimed = await cellBomb(10, 10, 'A1:CV100000');
    await expect(readUploadRows(claimed, 'xlsx', limits)).rejects.toThrow(
      'The workbook has more than 2,000,000 cells (a sheet spans 100,000 rows × 100 columns); delete the rows and columns that are not records or split it into smaller files.',
    );
    const small = workbookOf([header, row(1)]);
    await expect(readUploadRows(small, 'xlsx', { ...limits, maxCells: 29 })).rejects.toThrow(WorkbookRefused);
    expect((await readUploadRows(small, 'xlsx', { ...limits, maxCells: 30 })).rows).toHaveLength(1);
  });

  it('bounds an .xls by the cells SheetJS read', () => {
    const xls = workbookOf([header, row(1)], { bookType: 'biff8' });
    expect(() => readRows(xls, 'xls', { maxRows: 10, maxCellChars: 100, maxCells: 29 })).toThrow(
      UPLOAD_MESSAGES.tooManyCells(29, { rows: 2, columns: 15 }),
    );
    expect(readRows(xls, 'xls', { maxRows: 10, maxCellChars: 100, maxCells: 30 }).rows).toHaveLength(1);
  });
});

describe('the upload check of a sheet’s dimension', () => {
  const limits = { maxBytes: 25 * MB, maxUncompressedBytes: 250 * MB, maxCells: 2_000_000 };

  it('refuses with 413 a sheet declaring more cells than the bound, from its first bytes', async () => {
    const bomb = await cellBomb(100_000, 100, true);
    const err = await checkUpload('bomb.xlsx', bomb, limits).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadRefused);
    expect(err).toMatchObject({
      status: 413,
      message:
        'The workbook has more than 2,000,000 cells (a sheet spans 100,000 rows × 100 columns); delete the rows and columns that are not records or split it into smaller files.',
    });
  });

  it('takes a sheet with no dimension (the worker counts its cells) and one within the bound', async () => {
    expect(await checkUpload('bomb.xlsx', await cellBomb(1000, 100, false), limits)).toBe('xlsx');
    expect(await checkUpload('ok.xlsx', await cellBomb(1000, 100, true), { ...limits, maxCells: 100_000 })).toBe(
      'xlsx',
    );
  });
});
