import {
  COUNTRIES,
  CRIME_SUBTYPES,
  CRIME_TYPES,
  DEFAULT_SOURCE_OPTIONS,
  NAMLC_ORGANIZATIONS,
  NAMLC_REFERRAL_SOURCE,
  RecordFieldsSchema,
  RecordInputSchema,
} from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { checkUpload, readZipDirectory } from './file-check.ts';
import {
  ALLOWED_VALUES_SHEET,
  buildTemplate,
  RECORDS_SHEET,
  TEMPLATE_COLUMNS,
  TEMPLATE_FILE_NAME,
} from './template.ts';
import { columnOfHeader, readRows, readXlsxRows, WORKBOOK_MESSAGES, WorkbookRefused } from './workbook.ts';

const options = { sources: [...DEFAULT_SOURCE_OPTIONS], countries: [...COUNTRIES] };
const template = buildTemplate(options);
const limits = { maxRows: 100_000, maxCellChars: 10_000 };
const workbook = XLSX.read(template, { type: 'array', cellStyles: true, cellNF: true, dense: true });
/** The cells of a sheet of the template, row by row. */
const cellsOf = (name: string) => (workbook.Sheets[name]?.['!data'] ?? []) as XLSX.CellObject[][];
const rowsOf = (name: string) =>
  XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets[name] as XLSX.WorkSheet, { header: 1, raw: true });

describe('the template', () => {
  it('has the columns in the Add Record form order, with its labels, the required ones marked', () => {
    expect(TEMPLATE_COLUMNS.map((c) => c.title)).toEqual([
      'Incident Number',
      'Suspect Name',
      'Suspect Date of Birth',
      'Incident Date',
      'Case Amount',
      'Seized Amount',
      'Confiscated Amount',
      'Source of Record',
      'NAMLC Organization',
      'International Nexus',
      'Cyber-Assisted',
      'Country',
      'Crime Type',
      'Crime Subtype',
      'Additional Information',
    ]);
    expect(TEMPLATE_COLUMNS.filter((c) => c.required).map((c) => c.field)).toEqual([
      'incidentNumber',
      'suspectName',
      'suspectDob',
      'incidentDate',
      'caseAmount',
      'sourceOfRecord',
      'internationalNexus',
    ]);
    // Every field of the record creation input, once.
    const fields = Object.keys(RecordFieldsSchema.shape).sort();
    expect(TEMPLATE_COLUMNS.map((c) => c.field).sort()).toEqual(fields);
    expect(TEMPLATE_FILE_NAME).toBe('nrad-records-template.xlsx');
  });

  it('is an .xlsx that passes the upload checks', async () => {
    expect(
      await checkUpload(TEMPLATE_FILE_NAME, template, {
        maxBytes: 25 * 1024 * 1024,
        maxUncompressedBytes: 1024 * 1024,
        maxCells: 2_000_000,
      }),
    ).toBe('xlsx');
    expect(workbook.SheetNames).toEqual([RECORDS_SHEET, ALLOWED_VALUES_SHEET]);
  });

  it('has a header whose every column is read as its field', () => {
    const [header] = rowsOf(RECORDS_SHEET);
    expect(header?.map((title) => columnOfHeader(String(title))?.field)).toEqual(TEMPLATE_COLUMNS.map((c) => c.field));
  });

  it('read back as uploaded, gives exactly one valid row that the record schema accepts', () => {
    const table = readRows(template, 'xlsx', limits);
    expect(table.warnings).toEqual([]);
    expect(table.rows).toHaveLength(1);
    const [row] = table.rows;
    expect(row?.row).toBe(2);
    expect(row?.errors).toEqual([]);
    expect(row?.body).toEqual({
      incidentNumber: 'EXAMPLE-2025-0001',
      suspectName: 'Jane Example',
      suspectDob: '1980-05-01',
      incidentDate: '2025-01-15',
      caseAmount: '12500.5',
      seizedAmount: '5000',
      confiscatedAmount: '0',
      sourceOfRecord: 'Police Investigation',
      internationalNexus: false,
      cyberAssisted: false,
      country: 'Bermuda',
      crimeType: 'Fraud',
      crimeSubtype: 'Investment Fraud/Scams',
      additionalInfo: 'Example record: replace this row with your own records.',
    });
    const parsed = RecordInputSchema.safeParse(row?.body);
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toMatchObject({ caseAmount: '12500.50', seizedAmount: '5000.00', confiscatedAmount: '0.00' });
  });

  it('is read by the stream reader as SheetJS reads it (comments, validations and all)', async () => {
    const streamed = await readXlsxRows(template, readZipDirectory(template, 1024 * 1024), limits);
    expect(streamed).toEqual(readRows(template, 'xlsx', limits));
  });

  it('stores the example dates as Excel dates shown yyyy-mm-dd and the amounts as numbers shown 0.00', () => {
    const rows = cellsOf(RECORDS_SHEET);
    const cellOf = (field: string) => rows[1]?.[TEMPLATE_COLUMNS.findIndex((c) => c.field === field)];
    expect(cellOf('suspectDob')).toMatchObject({ t: 'n', v: 29342, z: 'yyyy-mm-dd' });
    expect(cellOf('incidentDate')).toMatchObject({ t: 'n', z: 'yyyy-mm-dd' });
    expect(cellOf('caseAmount')).toMatchObject({ t: 'n', v: 12500.5, z: '0.00' });
  });

  it('sets column widths and explains each column in its header comment', () => {
    const cols = workbook.Sheets[RECORDS_SHEET]?.['!cols'] ?? [];
    expect(cols).toHaveLength(TEMPLATE_COLUMNS.length);
    expect(cols.every((c) => (c.wch ?? c.width ?? 0) >= 10)).toBe(true);
    const header = cellsOf(RECORDS_SHEET)[0] ?? [];
    expect(header.map((cell) => cell.c?.[0]?.t)).toEqual(TEMPLATE_COLUMNS.map((c) => c.note));
  });

  it('takes the first current source that needs no NAMLC organization for the example', () => {
    const custom = buildTemplate({ sources: [NAMLC_REFERRAL_SOURCE, 'Harbour Patrol'], countries: ['Bermuda'] });
    expect(readRows(custom, 'xlsx', limits).rows[0]?.body.sourceOfRecord).toBe('Harbour Patrol');
  });
});

describe('the Allowed Values sheet', () => {
  const columns = () => {
    const [header = [], ...rows] = rowsOf(ALLOWED_VALUES_SHEET);
    const column = (title: string) => {
      const at = header.indexOf(title);
      expect(at).toBeGreaterThanOrEqual(0);
      return rows.map((r) => r[at]).filter((v) => v !== undefined && v !== '');
    };
    return { header, rows, column };
  };

  it('lists every crime type with each of its subtypes', () => {
    const { header, rows } = columns();
    const type = header.indexOf('Crime Type');
    const pairs = rows.filter((r) => r[type]).map((r) => `${r[type]} / ${r[type + 1]}`);
    const expected = CRIME_TYPES.flatMap((t) => CRIME_SUBTYPES[t].map((s) => `${t} / ${s}`));
    expect(pairs).toEqual(expected);
  });

  it('lists the given countries and sources, the NAMLC organizations and Yes/No', () => {
    const { column } = columns();
    expect(column('Country')).toEqual(options.countries);
    expect(column('Source of Record')).toEqual(options.sources);
    expect(column('NAMLC Organization')).toEqual([...NAMLC_ORGANIZATIONS]);
    expect(column('Yes/No (International Nexus, Cyber-Assisted)')).toEqual(['Yes', 'No']);
  });

  it('is never read as records', () => {
    const withoutRecords = XLSX.read(template, { type: 'array' });
    withoutRecords.SheetNames = withoutRecords.SheetNames.filter((n) => n !== RECORDS_SHEET);
    delete withoutRecords.Sheets[RECORDS_SHEET];
    const bytes = new Uint8Array(XLSX.write(withoutRecords, { type: 'array', bookType: 'xlsx' }) as ArrayBuffer);
    expect(() => readRows(bytes, 'xlsx', limits)).toThrow(WorkbookRefused);
    expect(() => readRows(bytes, 'xlsx', limits)).toThrow(WORKBOOK_MESSAGES.empty);
  });
});
