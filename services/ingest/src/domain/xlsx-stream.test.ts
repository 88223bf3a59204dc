/**
 * The stream reader (xlsx-stream.ts, readXlsxRows) against SheetJS (readRows) on the same files:
 * the rows, warnings and refusals must be the same, or the stream reader must leave the file to
 * SheetJS (StreamUnsupported). Workbooks written by SheetJS (strings inline as `str` and as shared
 * strings), random rows of awkward values, and hand-written XML of the shapes other writers use.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { type CellInput, zipArchive } from '../../test/fixtures/hostile-files.ts';
import { TEMPLATE_COLUMNS } from './columns.ts';
import { readZipDirectory } from './file-check.ts';
import { readUploadRows } from './upload-rows.ts';
import { type ReadLimits, readRows, readXlsxRows, WorkbookRefused } from './workbook.ts';
import { StreamUnsupported } from './xlsx-stream.ts';

const limits: ReadLimits = { maxRows: 60, maxCellChars: 40 };

type Outcome = { table: unknown } | { refused: string } | { unsupported: string };

async function outcome(read: () => unknown): Promise<Outcome> {
  try {
    return { table: await read() };
  } catch (err) {
    if (err instanceof WorkbookRefused) return { refused: err.message };
    if (err instanceof StreamUnsupported) return { unsupported: err.message };
    throw err;
  }
}

const stream = (bytes: Uint8Array, given = limits) =>
  outcome(() => readXlsxRows(bytes, readZipDirectory(bytes, 1e9), given));
const sheetjs = (bytes: Uint8Array, given = limits) => outcome(() => readRows(bytes, 'xlsx', given));

/** Asserts both readers agree on `bytes`; resolves what they read. */
async function agree(bytes: Uint8Array, given = limits): Promise<Outcome> {
  const theirs = await sheetjs(bytes, given);
  const ours = await stream(bytes, given);
  expect(ours).toEqual(theirs);
  return ours;
}

/** A workbook written by SheetJS: strings as `str` cells, or (`sst`) shared strings as Excel writes. */
function written(
  sheets: ReadonlyArray<readonly [string, readonly (readonly CellInput[])[]]>,
  options: { sst?: boolean; date1904?: boolean } = {},
): Uint8Array {
  const book = XLSX.utils.book_new();
  for (const [name, rows] of sheets) {
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows as CellInput[][]), name);
  }
  if (options.date1904) book.Workbook = { WBProps: { date1904: true } };
  return new Uint8Array(
    XLSX.write(book, { type: 'array', bookType: 'xlsx', compression: true, bookSST: options.sst ?? false }),
  );
}

const HEADER = TEMPLATE_COLUMNS.map((c) => c.title);

/** Numbers in [0, 1) from `seed`, the same every run. */
function rng(seed: number) {
  let n = 0;
  return () => createHash('sha256').update(`${seed}:${n++}`).digest().readUInt32BE(0) / 2 ** 32;
}

const AWKWARD: CellInput[] = [
  'Ann Example',
  'José Núñez-O’Brien',
  '  padded  ',
  '   ',
  '',
  'a & b <c> "d" \'e\'',
  '_x000D_ literal',
  'line\r\nbreak',
  'tab\there',
  '漢字 テスト',
  'emoji 😀 here',
  '&amp; already escaped',
  'x'.repeat(41),
  '2024-02-29',
  '31/12/2020',
  '05/06/2020',
  '1,234.50',
  '$99.999',
  'Yes',
  'no',
  'TRUE',
  'Police Investigation',
  0,
  1,
  -12.5,
  1234.567,
  45123,
  45123.75,
  1e21,
  0.1 + 0.2,
  true,
  false,
  null,
  { t: 'e', v: 0x07 },
  { t: 'e', v: 0x2a },
  { t: 'n', v: 36526 },
  { t: 's', v: 'inline object' },
];

function randomRows(seed: number, count: number): CellInput[][] {
  const random = rng(seed);
  const pick = () => AWKWARD[Math.floor(random() * AWKWARD.length)] ?? null;
  const header = [...HEADER.slice(0, 7), 'Notes', ...HEADER.slice(7)];
  const rows: CellInput[][] = [header];
  for (let i = 0; i < count; i++) {
    if (random() < 0.05) {
      rows.push([]); // a blank row
      continue;
    }
    rows.push(
      header.map((_, c) => (c === 0 ? `BPS-2025-${String(i).padStart(4, '0')}` : random() < 0.15 ? null : pick())),
    );
  }
  return rows;
}

describe('the stream reader reads what SheetJS reads', () => {
  it('workbooks SheetJS writes: random rows of awkward values, strings inline and shared', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rows = randomRows(seed, 40);
      for (const sst of [false, true]) {
        const read = await agree(written([['Records', rows]], { sst, date1904: seed % 4 === 0 }));
        expect(read).toHaveProperty('table'); // the rows themselves were compared
      }
    }
  });

  it('sheets before the data sheet, the Allowed Values sheet, and refusals of the whole file', async () => {
    const rows = randomRows(7, 10);
    const cases: Array<ReadonlyArray<readonly [string, readonly (readonly CellInput[])[]]>> = [
      [
        ['Allowed Values', [['Source of Record'], ['Police Investigation']]],
        ['Records', rows],
      ],
      [
        ['Notes', [[], ['header is on the second row']]],
        ['Records', rows],
      ],
      [['Empty', [[]]]],
      [['Late', [[], [], ['Incident Number']]]],
      [['Records', [['Incident Number', 'Suspect Name']]]], // columns missing
      [['Records', [HEADER, ['only a number']]]],
      [['Records', [HEADER]]], // no records
      [['Records', [[...HEADER, 'Suspect Name'], ['x']]]], // a column twice
      [['Records', [HEADER, ...Array.from({ length: 60 }, (_, i) => [`N-${i}`, 'A B'])]]], // exactly the limit
      [['Records', [HEADER, ...Array.from({ length: 61 }, (_, i) => [`N-${i}`, 'A B'])]]], // one more
    ];
    const seen = new Set<string>();
    for (const sheets of cases) {
      for (const sst of [false, true]) {
        const read = await agree(written(sheets, { sst }));
        seen.add('refused' in read ? read.refused : 'rows');
      }
    }
    expect(seen.size).toBeGreaterThanOrEqual(6); // the cases reached different outcomes
  });
});

const CT_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const enc = (s: string) => new TextEncoder().encode(s);

/** An .xlsx of hand-written parts: one sheet (`sheetXml` its `<sheetData>` and what is around it). */
function handWritten(sheetXml: string, options: { strings?: string[]; sst?: string; workbookPr?: string } = {}) {
  const sst =
    options.sst ??
    (options.strings
      ? `<sst xmlns="${MAIN_NS}">${options.strings.map((s) => `<si>${s}</si>`).join('')}</sst>`
      : undefined);
  return zipArchive([
    {
      name: '[Content_Types].xml',
      data: enc(
        `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${CT_NS}">` +
          '<Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
          (sst
            ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
            : '') +
          '</Types>',
      ),
    },
    {
      name: '_rels/.rels',
      data: enc(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: 'xl/workbook.xml',
      data: enc(
        `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN_NS}" xmlns:r="${REL}">${options.workbookPr ?? ''}<sheets><sheet name="Data &amp; more" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: enc(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
          (sst ? `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '') +
          '</Relationships>',
      ),
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      data: enc(`<?xml version="1.0"?><worksheet xmlns="${MAIN_NS}">${sheetXml}</worksheet>`),
    },
    ...(sst ? [{ name: 'xl/sharedStrings.xml', data: enc(sst) }] : []),
  ]);
}

/** The seven required columns' titles: A Incident Number … F Source of Record, G International Nexus. */
const REQUIRED = TEMPLATE_COLUMNS.filter((c) => c.required).map((c) => c.title);

/** A header row (row 1) of inline strings: the required columns. */
const headerRow = (prefix = '') =>
  `<${prefix}row r="1">${REQUIRED.map(
    (h, i) =>
      `<${prefix}c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><${prefix}is><${prefix}t>${h}</${prefix}t></${prefix}is></${prefix}c>`,
  ).join('')}</${prefix}row>`;

describe('the stream reader on the shapes other writers use', () => {
  it('shared strings with rich text, phonetic runs, preserved spaces, entities and escapes', async () => {
    const strings = [
      '<t>Ann &amp; Bo</t>',
      '<r><rPr><b/></rPr><t>Rich</t></r><r><t xml:space="preserve"> Text</t></r><rPh sb="0" eb="1"><t>ruby</t></rPh>',
      '<t xml:space="preserve">  spaced  </t>',
      '<t>&#x41;&#66;_x0043_ &lt;tag&gt;</t>',
      '<t>caf\u00c3\u00a9</t>', // bytes of UTF-8 written as latin1 characters: SheetJS decodes them
      '<t>Police Investigation</t>',
      '<t/>',
      '<phoneticPr fontId="1"/>',
    ];
    const cell = (ref: string, i: number) => `<c r="${ref}" t="s"><v>${i}</v></c>`;
    const rows = Array.from(
      { length: strings.length },
      (_, i) =>
        `<row r="${i + 2}"><c r="A${i + 2}" t="inlineStr"><is><t>N-${i}</t></is></c>${cell(`B${i + 2}`, i)}<c r="F${i + 2}" t="s"><v>5</v></c></row>`,
    );
    const bytes = handWritten(`<dimension ref="A1:G9"/><sheetData>${headerRow()}${rows.join('')}</sheetData>`, {
      strings,
    });
    expect(await agree(bytes)).toHaveProperty('table');
  });

  it('cells and rows without references, prefixed elements, the cell types, values SheetJS reads oddly', async () => {
    const body = [
      '<row><c t="inlineStr"><is><t>A-1</t></is></c><c t="str"><v>a &amp;amp; b</v></c><c t="b"><v>1</v></c><c t="b"><v>true</v></c></row>',
      '<row r="4"><c r="A4" t="str"><v>A-2</v></c><c r="B4" t="e"><v>#N/A</v></c><c r="C4" t="e"><v>#FOO</v></c><c r="D4"><v> </v></c><c r="E4"><v>1.5e3</v></c></row>',
      '<row r="5" spans="1:7"><c r="A5" s="3" t="str"><v>A-3</v></c><c r="B5" t="str"></c><c r="C5"/><c r="D5" t="n"><v>45000</v></c><c r="G5" t="x"><v>odd type</v></c></row>',
      '<row r="6"/>',
      '<row r="7"><c r="A7" t="inlineStr"><is><r><t>Ri</t></r><r><t>ch</t></r></is></c><c r="B7" t="inlineStr"><is></is></c><c r="C7" t="str"><v><![CDATA[<raw> & text]]></v></c></row>',
    ];
    for (const prefix of ['', 'x:']) {
      const rows = body.map((r) => (prefix ? r.replace(/<(\/?)(row|c|v|is|t|r)\b/g, `<$1${prefix}$2`) : r)).join('');
      const sheet = prefix
        ? `<x:sheetData xmlns:x="${MAIN_NS}">${headerRow(prefix)}${rows}</x:sheetData>`
        : `<sheetData>${headerRow()}${rows}</sheetData>`;
      expect(await agree(handWritten(sheet))).toHaveProperty('table');
    }
  });

  it('rows longer than a chunk of the unpacked part, and tags cut between chunks', async () => {
    const long = 'x'.repeat(200_000);
    const cells = Array.from({ length: 3_000 }, (_, i) => `<c r="${XLSX.utils.encode_col(7 + i)}2"><v>${i}</v></c>`);
    const rows =
      `<row r="2"><c r="A2" t="str"><v>L-1</v></c><c r="B2" t="inlineStr"><is><t>${long}</t></is></c>${cells.join('')}</row>` +
      Array.from(
        { length: 2_000 },
        (_, i) => `<row r="${i + 3}"><c r="A${i + 3}" t="str"><v>N-${i}</v></c></row>`,
      ).join('');
    const big = { maxRows: 5_000, maxCellChars: 40 };
    expect(await agree(handWritten(`<sheetData>${headerRow()}${rows}</sheetData>`), big)).toHaveProperty('table');
  });

  it('the 1904 date system, a dimension past the rows read, a row past the limit', async () => {
    const dateRow =
      '<row r="2"><c r="A2" t="str"><v>D-1</v></c><c r="C2"><v>30000</v></c><c r="D2"><v>30001.5</v></c></row>';
    const pr = '<workbookPr date1904="1"/>';
    expect(
      await agree(handWritten(`<sheetData>${headerRow()}${dateRow}</sheetData>`, { workbookPr: pr })),
    ).toHaveProperty('table');
    const small = { maxRows: 3, maxCellChars: 40 };
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="str"><v>N-${i}</v></c></row>`).join(
        '',
      );
    // sheetRows is maxRows + 2 = 5: a dimension ending on row 6 is SheetJS's truncation.
    const cases = [
      [`<dimension ref="A1:G6"/><sheetData>${headerRow()}${rows(2)}</sheetData>`, 'refused'],
      [`<dimension ref="A1:G5"/><sheetData>${headerRow()}${rows(2)}</sheetData>`, 'table'],
      [`<dimension ref="A1"/><sheetData>${headerRow()}${rows(3)}</sheetData>`, 'table'],
      [`<sheetData>${headerRow()}${rows(4)}</sheetData>`, 'refused'], // row 5 holds a record
      [`<sheetData>${headerRow()}${rows(3)}<row r="9"><c r="A9" t="str"><v>far</v></c></row></sheetData>`, 'table'],
    ] as const;
    for (const [sheet, expected] of cases) expect(await agree(handWritten(sheet), small)).toHaveProperty(expected);
  });

  it('leaves to SheetJS what it does not read, and readUploadRows then reads it with SheetJS', async () => {
    const left = [
      `<sheetData>${headerRow()}<row r="2"><c r="A2"><f>1+1</f><v>2</v></c></row></sheetData>`, // a formula
      `<sheetData>${headerRow()}<row r="2"><c r="A2" t="d"><v>2020-01-01</v></c></row></sheetData>`, // an ISO date cell
      `<sheetData>${headerRow()}<row r="3"><c r="A3" t="str"><v>x</v></c></row><row r="2"><c r="A2" t="str"><v>y</v></c></row></sheetData>`,
      `<sheetData>${headerRow()}<row r="2"><c r="A3" t="str"><v>x</v></c></row></sheetData>`, // a cell outside its row
      `<sheetData>${headerRow()}<row r="2"><c r="A2" t="s"><v>7</v></c></row></sheetData>`, // no such shared string
      `<sheetData/>${headerRow()}</sheetData>`, // an empty sheetData closed again
      `<sheetData>${headerRow()}`, // never closed
    ];
    for (const sheet of left) {
      const bytes = handWritten(sheet);
      expect(await stream(bytes)).toHaveProperty('unsupported');
      const upload = await outcome(() =>
        readUploadRows(bytes, 'xlsx', { ...limits, maxCells: 1e6, maxUncompressedBytes: 1e9 }),
      );
      const theirs = await sheetjs(bytes);
      if ('table' in upload) {
        expect(upload.table).toMatchObject({
          reader: 'sheetjs',
          rows: (theirs as { table: { rows: unknown } }).table.rows,
        });
      } else {
        expect(upload).toEqual(theirs);
      }
    }
  });

  it('readUploadRows reads a common .xlsx with the stream reader', async () => {
    const bytes = written([['Records', randomRows(3, 20)]], { sst: true });
    const read = await readUploadRows(bytes, 'xlsx', { ...limits, maxCells: 1e6, maxUncompressedBytes: 1e9 });
    expect(read.reader).toBe('stream');
    expect(read.rows).toEqual((readRows(bytes, 'xlsx', limits) as { rows: unknown }).rows);
  });
});
