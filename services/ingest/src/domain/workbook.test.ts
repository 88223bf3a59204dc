import { RecordInputSchema } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import {
  type CellInput,
  compoundFile,
  encryptedXlsx,
  workbookOf,
  zipArchive,
  zipParts,
} from '../../test/fixtures/hostile-files.ts';
import { CELL_MESSAGES } from './cells.ts';
import { TEMPLATE_COLUMNS } from './columns.ts';
import {
  columnOfHeader,
  normalizeHeader,
  type ReadLimits,
  readRows,
  type SheetTable,
  WORKBOOK_MESSAGES,
  WorkbookRefused,
} from './workbook.ts';

const limits: ReadLimits = { maxRows: 100, maxCellChars: 10_000 };

const HEADER = [
  'Incident Number',
  'Suspect Name',
  'Suspect Date of Birth',
  'Incident Date',
  'Case Amount',
  'Source of Record',
  'International Nexus',
];
/** A valid row under HEADER. */
const good = (incident = 'BPS-2025-0001'): CellInput[] => [
  incident,
  'Ann Example',
  '1980-05-01',
  '2025-01-15',
  1250.5,
  'Police Investigation',
  'No',
];

const read = (rows: readonly (readonly CellInput[])[], given: ReadLimits = limits, options = {}): SheetTable =>
  readRows(workbookOf(rows, options), 'xlsx', given);

/** The message of the WorkbookRefused `fn` throws. */
function refusedWith(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof WorkbookRefused) {
      expect(err.status).toBe(400);
      return err.message;
    }
    throw err;
  }
  throw new Error('not refused');
}

describe('headers', () => {
  it('match ignoring case, spaces, punctuation and accents, by title, field name or alias', () => {
    expect(normalizeHeader('Case Amount ($)')).toBe('caseamount');
    expect(normalizeHeader(' INCIDENT_NUMBER ')).toBe('incidentnumber');
    expect(normalizeHeader('Número')).toBe('numero');
    for (const header of ['Incident Number', 'incidentNumber', 'INCIDENT_NUMBER', 'incident-number', 'Incident #']) {
      expect(columnOfHeader(header)?.field).toBe('incidentNumber');
    }
    expect(columnOfHeader('Case Amount ($)')?.field).toBe('caseAmount');
    expect(columnOfHeader('Suspect DOB')?.field).toBe('suspectDob');
    expect(columnOfHeader('suspect_dob')?.field).toBe('suspectDob');
    expect(columnOfHeader('Case Information')?.field).toBe('additionalInfo');
    expect(columnOfHeader('Cyber Assisted')?.field).toBe('cyberAssisted');
    expect(columnOfHeader('Crime Type (optional)')?.field).toBe('crimeType');
    expect(columnOfHeader('Ínternational  Néxus')?.field).toBe('internationalNexus');
    expect(columnOfHeader('Amount')).toBeUndefined();
  });

  it('know every field by its title and by its name', () => {
    for (const column of TEMPLATE_COLUMNS) {
      expect(columnOfHeader(column.title)).toBe(column);
      expect(columnOfHeader(column.field)).toBe(column);
    }
  });

  it('read a full row in any column order and spelling into a body the record schema accepts', () => {
    const table = read([
      [
        'INTERNATIONAL_NEXUS',
        'country',
        'Incident #',
        'suspectName',
        'Suspect DOB',
        'incident date',
        'Case Amount ($)',
        'Seized Amount',
        'confiscatedAmount',
        'Source',
        'NAMLC Organization',
        'Cyber-Assisted',
        'Crime Type',
        'Crime Subtype',
        'Case Information',
      ],
      [
        'Yes',
        'Canada',
        'FIA-2025-77',
        'Jean Tremblay',
        '14/07/1975',
        { t: 'n', v: 45672 },
        '$12,500.50',
        2000,
        '0',
        'Referral from NAMLC organization',
        'Bermuda Police Service',
        'y',
        'Money Laundering',
        'Smurfing/Structuring',
        '=HYPERLINK("http://evil")',
      ],
    ]);
    expect(table.warnings).toEqual([]);
    expect(table.rows).toHaveLength(1);
    const [row] = table.rows;
    expect(row).toEqual({
      row: 2,
      errors: [],
      body: {
        internationalNexus: true,
        country: 'Canada',
        incidentNumber: 'FIA-2025-77',
        suspectName: 'Jean Tremblay',
        suspectDob: '1975-07-14',
        incidentDate: '2025-01-15',
        caseAmount: '12500.50',
        seizedAmount: '2000',
        confiscatedAmount: '0',
        sourceOfRecord: 'Referral from NAMLC organization',
        namlcOrganization: 'Bermuda Police Service',
        cyberAssisted: true,
        crimeType: 'Money Laundering',
        crimeSubtype: 'Smurfing/Structuring',
        additionalInfo: '=HYPERLINK("http://evil")',
      },
    });
    const parsed = RecordInputSchema.safeParse(row?.body);
    expect(parsed.success).toBe(true);
    expect(parsed.data?.caseAmount).toBe('12500.50');
  });

  it('ignore unknown columns, each named once in the warnings', () => {
    const table = read([
      [...HEADER, 'Notes', 'Officer', 'Notes'],
      [...good(), 'a note', 'PC 12', 'again'],
      [...good('BPS-2025-0002'), 'another', 'PC 13', ''],
    ]);
    expect(table.warnings).toEqual([
      'Column H ("Notes") is not a record field; it was ignored.',
      'Column I ("Officer") is not a record field; it was ignored.',
      'Column J ("Notes") is not a record field; it was ignored.',
    ]);
    expect(Object.keys(table.rows[0]?.body ?? {})).not.toContain('Notes');
  });

  it('name at most 20 unknown columns and count the rest, quoting long headers shortened', () => {
    const unknown = Array.from({ length: 25 }, (_, i) => `Extra ${i}`);
    const table = read([[...HEADER, `${'Very long header '.repeat(10)}`, ...unknown], good()]);
    expect(table.warnings).toHaveLength(21);
    expect(table.warnings[0]).toMatch(
      /^Column H \("Very long header Very long header .{0,40}…"\) is not a record field/,
    );
    expect(table.warnings.at(-1)).toBe('6 more columns are not record fields; they were ignored.');
  });

  it('refuse a file without a required column, naming every missing one', () => {
    const withoutNameAndDate = HEADER.filter((h) => h !== 'Suspect Name' && h !== 'Incident Date');
    expect(refusedWith(() => read([withoutNameAndDate, ['BPS-1', '1980-05-01', 10, 'Police', 'No']]))).toBe(
      'Missing columns: Suspect Name, Incident Date',
    );
    expect(refusedWith(() => read([['Notes'], ['x']]))).toBe(
      'Missing columns: Incident Number, Suspect Name, Suspect Date of Birth, Incident Date, Case Amount, Source of Record, International Nexus',
    );
  });

  it('refuse two columns for one field', () => {
    expect(
      refusedWith(() =>
        read([
          [...HEADER, 'incidentNumber'],
          [...good(), 'BPS-9'],
        ]),
      ),
    ).toBe('Columns A and H are all Incident Number; keep one of them.');
    expect(
      refusedWith(() =>
        read([
          [...HEADER, 'DOB', 'date of birth'],
          [...good(), 1, 2],
        ]),
      ),
    ).toBe('Columns C, H and I are all Suspect Date of Birth; keep one of them.');
  });
});

describe('rows', () => {
  it('number rows as the spreadsheet shows them, skipping blank and whitespace-only rows', () => {
    const table = read([
      HEADER,
      good('BPS-1'),
      [],
      ['  ', null, '\t'],
      good('BPS-2'),
      [null, null, null, null, null, null, null, null, null, ' '],
      good('BPS-3'),
    ]);
    expect(table.rows.map((r) => [r.row, r.body.incidentNumber])).toEqual([
      [2, 'BPS-1'],
      [5, 'BPS-2'],
      [7, 'BPS-3'],
    ]);
  });

  it('leave empty cells out of the body, so that defaults and "required" apply as for a single create', () => {
    const table = read([
      [...HEADER, 'Seized Amount', 'Country'],
      ['BPS-1', '  ', '1980-05-01', '2025-01-15', 10, 'Police Investigation', 'No', null, ''],
    ]);
    const [row] = table.rows;
    expect(row?.errors).toEqual([]);
    expect(row?.body).not.toHaveProperty('suspectName');
    expect(row?.body).not.toHaveProperty('seizedAmount');
    expect(row?.body).not.toHaveProperty('country');
    const parsed = RecordInputSchema.safeParse(row?.body);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['suspectName']);
  });

  it('report each cell that cannot be read with its row and field, leaving the field out', () => {
    const table = read([
      HEADER,
      ['BPS-1', 'Ann', '05/03/1980', '2025-01-15', 12.345, 'Police', 'maybe'],
      ['BPS-2', 'Bob', '1980-05-01', 'soon', 'lots', 'Police', 'No'],
    ]);
    expect(table.rows.map((r) => r.errors)).toEqual([
      [
        { row: 2, field: 'suspectDob', message: 'ambiguous date: write it as YYYY-MM-DD' },
        { row: 2, field: 'caseAmount', message: 'must have at most 2 decimals' },
        { row: 2, field: 'internationalNexus', message: 'must be Yes or No' },
      ],
      [
        { row: 3, field: 'incidentDate', message: 'must be a date (YYYY-MM-DD)' },
        { row: 3, field: 'caseAmount', message: 'must be an amount such as 1234.50' },
      ],
    ]);
    expect(table.rows[0]?.body).toEqual({
      incidentNumber: 'BPS-1',
      suspectName: 'Ann',
      incidentDate: '2025-01-15',
      sourceOfRecord: 'Police',
    });
  });

  it('write numbers typed in text columns as text, without ".0" or exponents', () => {
    const table = read([HEADER, [12345, 'Ann', '1980-05-01', '2025-01-15', 1e6, 'Police', 0]]);
    expect(table.rows[0]?.body).toMatchObject({
      incidentNumber: '12345',
      caseAmount: '1000000',
      internationalNexus: false,
    });
  });

  it('read booleans stored as boolean cells', () => {
    const table = read([HEADER, [...good().slice(0, 6), true]]);
    expect(table.rows[0]?.body.internationalNexus).toBe(true);
  });

  it('read dates stored as Excel dates, in the 1904 date system too', () => {
    const dated = [...good()];
    dated[2] = { t: 'n', v: 29342, z: 'yyyy-mm-dd' };
    dated[3] = { t: 'n', v: 45672, z: 'dd/mm/yyyy' };
    expect(read([HEADER, dated]).rows[0]?.body).toMatchObject({ suspectDob: '1980-05-01', incidentDate: '2025-01-15' });
    const in1904 = read([HEADER, dated], limits, { date1904: true }).rows[0]?.body;
    expect(in1904).toMatchObject({ suspectDob: '1984-05-02', incidentDate: '2029-01-16' });
  });
});

describe('values only', () => {
  it('refuse formula cells on their row, and ignore formulas outside the record columns', () => {
    const withFormulas = [...good(), { t: 'n', v: 3, f: 'LEN(A2)' }] as CellInput[];
    withFormulas[4] = { t: 'n', v: 1250.5, f: 'SUM(1000,250.5)' };
    withFormulas[0] = { t: 's', v: 'BPS-7', f: 'CONCAT("BPS-",7)' };
    const table = read([[...HEADER, 'Check'], withFormulas]);
    expect(table.rows[0]?.errors).toEqual([
      { row: 2, field: 'incidentNumber', message: 'formulas are not accepted; paste values' },
      { row: 2, field: 'caseAmount', message: CELL_MESSAGES.formula },
    ]);
    expect(table.rows[0]?.body).not.toHaveProperty('incidentNumber');
    expect(table.rows[0]?.body).not.toHaveProperty('caseAmount');
  });

  it('refuse a formula whose saved result is empty, and skip rows whose formulas all show nothing', () => {
    const blankResult = { t: 's', v: '', f: 'IF(A3="","",A3)' } as CellInput;
    const emptyFormula = good();
    emptyFormula[1] = blankResult;
    const table = read([HEADER, emptyFormula, [blankResult, blankResult], good('BPS-4')]);
    expect(table.rows.map((r) => r.row)).toEqual([2, 4]);
    expect(table.rows[0]?.errors).toEqual([{ row: 2, field: 'suspectName', message: CELL_MESSAGES.formula }]);
  });

  it('keep text starting with =, +, - or @ as text, exactly as typed', () => {
    const typed = ["=cmd|' /C calc'!A0", '+SUM(1,2)', "-2+3+cmd|' /C calc'!A0", '@SUM(A1:A9)'];
    const rows = typed.map((text, i) => {
      const row = good(`BPS-${i}`);
      row[1] = text;
      return [...row, text];
    });
    const table = read([[...HEADER, 'Additional Information'], ...rows]);
    expect(table.rows.map((r) => [r.body.suspectName, r.body.additionalInfo])).toEqual(typed.map((t) => [t, t]));
    expect(table.rows.every((r) => r.errors.length === 0)).toBe(true);
  });

  it('refuse a 20,000-character cell on its row without keeping it', () => {
    const long = 'A'.repeat(20_000);
    const table = read([
      [...HEADER, 'Additional Information'],
      [...good(), long],
    ]);
    const [row] = table.rows;
    expect(row?.errors).toEqual([
      { row: 2, field: 'additionalInfo', message: 'the cell is longer than 10,000 characters' },
    ]);
    expect(row?.body).not.toHaveProperty('additionalInfo');
    expect(row?.body.incidentNumber).toBe('BPS-2025-0001');
    expect(JSON.stringify(table).length).toBeLessThan(2_000);
  });
});

describe('names that are object keys', () => {
  it('treat __proto__, constructor and prototype headers as unknown columns, harmlessly', () => {
    const table = read([
      [...HEADER, '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'],
      [...good(), '{"polluted":true}', 'x', 'y', 'z', 'w'],
    ]);
    expect(table.warnings).toHaveLength(5);
    expect(table.warnings[0]).toBe('Column H ("__proto__") is not a record field; it was ignored.');
    const body = table.rows[0]?.body ?? {};
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body).sort()).toEqual(
      [
        'incidentNumber',
        'suspectName',
        'suspectDob',
        'incidentDate',
        'caseAmount',
        'sourceOfRecord',
        'internationalNexus',
      ].sort(),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(RecordInputSchema.safeParse(body).success).toBe(true);
  });

  it('read records from a sheet named __proto__, and skip empty sheets named constructor or prototype', () => {
    const bytes = workbookOf([HEADER, good('BPS-PROTO')], {
      sheetName: '__proto__',
      before: [
        ['constructor', []],
        ['prototype', [[null], ['below the first row']]],
      ],
    });
    const table = readRows(bytes, 'xlsx', limits);
    expect(table.rows.map((r) => r.body.incidentNumber)).toEqual(['BPS-PROTO']);
    expect(({} as Record<string, unknown>)['!data']).toBeUndefined();
  });

  it('take an empty sheet named constructor for empty, not for Object', () => {
    const bytes = workbookOf([[]], { sheetName: 'constructor' });
    expect(refusedWith(() => readRows(bytes, 'xlsx', limits))).toBe('The file is empty: it has no header row.');
  });
});

describe('which sheet', () => {
  it('skips the Allowed Values sheet and reads the first sheet with a header row', () => {
    const bytes = workbookOf([HEADER, good('BPS-REAL')], {
      before: [
        ['Allowed Values', [HEADER, good('BPS-FAKE')]],
        ['Empty', []],
      ],
      after: [['Later', [HEADER, good('BPS-LATER')]]],
    });
    expect(readRows(bytes, 'xlsx', limits).rows.map((r) => r.body.incidentNumber)).toEqual(['BPS-REAL']);
  });

  it('reads an .xls workbook as an .xlsx one', () => {
    const rows = [HEADER, good('BPS-1'), [], good('BPS-2')];
    const fromXls = readRows(workbookOf(rows, { bookType: 'biff8' }), 'xls', limits);
    expect(fromXls).toEqual(read(rows));
    expect(fromXls.rows.map((r) => r.row)).toEqual([2, 4]);
  });

  it('reads an .xlsx written with data descriptors (Apache POI, Go) as any other', () => {
    const bytes = workbookOf([HEADER, good()]);
    const rezipped = zipArchive(zipParts(bytes).map((part) => ({ ...part, dataDescriptor: true })));
    expect(readRows(rezipped, 'xlsx', limits)).toEqual(readRows(bytes, 'xlsx', limits));
  });
});

describe('files refused as a whole', () => {
  it('an empty workbook', () => {
    expect(refusedWith(() => read([]))).toBe('The file is empty: it has no header row.');
    expect(refusedWith(() => read([[null, '  ']]))).toBe(WORKBOOK_MESSAGES.empty);
  });

  it('a sheet whose first row is not the header', () => {
    expect(refusedWith(() => read([[], ['Records of 2025'], HEADER, good()]))).toBe(
      'The first row of the sheet must hold the column headers (such as Incident Number).',
    );
  });

  it('a header row without records', () => {
    expect(refusedWith(() => read([HEADER]))).toBe('The file has no records below the header row.');
    expect(refusedWith(() => read([HEADER, [], ['  ']]))).toBe(WORKBOOK_MESSAGES.noRecords);
  });

  it('more rows than the limit, named in the message', () => {
    const rows = (n: number) => [HEADER, ...Array.from({ length: n }, (_, i) => good(`BPS-${i}`))];
    const small = { maxRows: 5, maxCellChars: 100 };
    expect(read(rows(5), small).rows).toHaveLength(5);
    expect(refusedWith(() => read(rows(6), small))).toBe(
      'The file has more than 5 rows; split it into files of at most 5 rows.',
    );
    expect(refusedWith(() => read(rows(40), small))).toBe(WORKBOOK_MESSAGES.tooManyRows(5));
    expect(WORKBOOK_MESSAGES.tooManyRows(100_000)).toBe(
      'The file has more than 100,000 rows; split it into files of at most 100,000 rows.',
    );
  });

  it('rows past the limit counting blank rows, or a sheet whose dimension goes further', () => {
    const small = { maxRows: 5, maxCellChars: 100 };
    // 5 records, but the last is on row 8: the rows read stop at row 7.
    const spread = [HEADER, good('1'), good('2'), [], [], good('3'), good('4'), good('5')];
    expect(refusedWith(() => read(spread, small))).toBe(WORKBOOK_MESSAGES.tooManyRows(5));
    const sheet = XLSX.utils.aoa_to_sheet([HEADER, good()]);
    sheet['!ref'] = 'A1:G50';
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, sheet, 'Records');
    const bytes = new Uint8Array(XLSX.write(workbook, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    expect(refusedWith(() => readRows(bytes, 'xlsx', small))).toBe(WORKBOOK_MESSAGES.tooManyRows(5));
    expect(readRows(bytes, 'xlsx', { maxRows: 48, maxCellChars: 100 }).rows).toHaveLength(1);
  });

  it('a password-protected workbook', () => {
    const message = 'The workbook is password-protected: save it without a password and upload it again.';
    expect(refusedWith(() => readRows(encryptedXlsx(), 'xls', limits))).toBe(message);
    expect(refusedWith(() => readRows(encryptedXlsx(), 'xlsx', limits))).toBe(message);
    const bof = [0x09, 0x08, 16, 0, 0x00, 0x06, 0x05, 0x00, ...new Array<number>(12).fill(0)];
    const filePass = [0x2f, 0x00, 2, 0, 0, 0];
    const encryptedXls = compoundFile({ Workbook: new Uint8Array([...bof, ...filePass, ...new Array(600).fill(0)]) });
    expect(refusedWith(() => readRows(encryptedXls, 'xls', limits))).toBe(message);
  });

  it('a damaged workbook, or content that is not the kind given', () => {
    const bytes = workbookOf([HEADER, good()]);
    const damaged = 'The file is damaged or not a valid Excel workbook.';
    expect(refusedWith(() => readRows(bytes.slice(0, bytes.length / 2), 'xlsx', limits))).toBe(damaged);
    expect(refusedWith(() => readRows(new TextEncoder().encode(`${HEADER.join(',')}\n`), 'xlsx', limits))).toBe(
      damaged,
    );
    expect(refusedWith(() => readRows(bytes, 'xls', limits))).toBe(damaged);
  });
});

describe('at scale', () => {
  it('reads 100,000 rows of 15 columns', { timeout: 120_000 }, () => {
    const n = 100_000;
    const titles = TEMPLATE_COLUMNS.map((c) => c.title);
    const sheet = XLSX.utils.aoa_to_sheet([titles], { dense: true });
    const rows: CellInput[][] = [];
    for (let i = 0; i < n; i++) {
      rows.push([
        `BPS-2025-${i}`,
        `Suspect ${i}`,
        29_000 + (i % 5000),
        45_000 + (i % 600),
        1000 + i / 100,
        0,
        0,
        'Police Investigation',
        null,
        i % 2 ? 'Yes' : 'No',
        'No',
        i % 2 ? 'Canada' : 'Bermuda',
        'Fraud',
        'Credit Fraud',
        `Case ${i}`,
      ]);
    }
    XLSX.utils.sheet_add_aoa(sheet, rows, { origin: 1 });
    rows.length = 0;
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, sheet, 'Records');
    const bytes = new Uint8Array(XLSX.write(workbook, { type: 'array', bookType: 'xlsx', compression: true }));

    const table = readRows(bytes, 'xlsx', { maxRows: n, maxCellChars: 10_000 });
    expect(table.rows).toHaveLength(n);
    expect(table.rows.filter((r) => r.errors.length > 0)).toEqual([]);
    expect(table.rows.at(-1)).toMatchObject({
      row: n + 1,
      body: { incidentNumber: `BPS-2025-${n - 1}`, caseAmount: '1999.99' },
    });
  });
});
