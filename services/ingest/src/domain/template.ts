/**
 * The Excel template of `GET /api/records/template` (SPEC §2 "Download Template", issue 17): a
 * Records sheet with the header row and one valid example row, and an Allowed Values sheet listing
 * what the option columns take. Filled in and uploaded back, it is read as is.
 */
import {
  CRIME_SUBTYPES,
  CRIME_TYPES,
  DEFAULT_COUNTRY,
  NAMLC_ORGANIZATIONS,
  NAMLC_REFERRAL_SOURCE,
  TEMPLATE_FILE_NAME,
} from '@nrad/contracts';
import { type CellObject, utils, type WorkSheet, write } from 'xlsx';
import { ALLOWED_VALUES_SHEET, RECORDS_SHEET, type RecordField, TEMPLATE_COLUMNS } from './columns.ts';

export { ALLOWED_VALUES_SHEET, RECORDS_SHEET, TEMPLATE_COLUMNS, type TemplateColumn } from './columns.ts';

/** The name the template is downloaded as (the contracts', shared with the screen). */
export { TEMPLATE_FILE_NAME };

/** The current option lists the template names (the records service's dropdown options). */
export interface TemplateOptions {
  sources: readonly string[];
  countries: readonly string[];
}

const DATE_FORMAT = 'yyyy-mm-dd';
const AMOUNT_FORMAT = '0.00';

/** Days from Excel's day 0 (1899-12-30 in the 1900 date system) to a date after 1900-02-28. */
function excelSerial(isoDate: string): number {
  return (Date.parse(`${isoDate}T00:00:00Z`) - Date.UTC(1899, 11, 30)) / 86_400_000;
}

/**
 * The example row: clearly an example, and valid as a single create would judge it (its source is
 * the first of the current list that needs no NAMLC organization).
 */
function exampleRow(sources: readonly string[]): Record<RecordField, CellObject | undefined> {
  const source = sources.find((s) => s !== NAMLC_REFERRAL_SOURCE) ?? sources[0] ?? '';
  const text = (v: string): CellObject => ({ t: 's', v });
  const date = (iso: string): CellObject => ({ t: 'n', v: excelSerial(iso), z: DATE_FORMAT });
  const amount = (v: number): CellObject => ({ t: 'n', v, z: AMOUNT_FORMAT });
  return {
    incidentNumber: text('EXAMPLE-2025-0001'),
    suspectName: text('Jane Example'),
    suspectDob: date('1980-05-01'),
    incidentDate: date('2025-01-15'),
    caseAmount: amount(12500.5),
    seizedAmount: amount(5000),
    confiscatedAmount: amount(0),
    sourceOfRecord: text(source),
    namlcOrganization: undefined,
    internationalNexus: text('No'),
    cyberAssisted: text('No'),
    country: text(DEFAULT_COUNTRY),
    crimeType: text('Fraud'),
    crimeSubtype: text(CRIME_SUBTYPES.Fraud[1]),
    additionalInfo: text('Example record: replace this row with your own records.'),
  };
}

/** Width of a column in characters: its longest text, within bounds. */
function widthOf(texts: readonly string[], min = 10, max = 60): { wch: number } {
  const longest = Math.max(0, ...texts.map((t) => t.length));
  return { wch: Math.min(max, Math.max(min, longest + 2)) };
}

/** The Records sheet: the header (each with its note as a comment) and the example row. */
function recordsSheet(sources: readonly string[]): WorkSheet {
  const example = exampleRow(sources);
  const sheet: WorkSheet = {};
  TEMPLATE_COLUMNS.forEach((column, c) => {
    const comment = Object.assign([{ a: 'NRAD', t: column.note }], { hidden: true });
    sheet[utils.encode_cell({ r: 0, c })] = { t: 's', v: column.title, c: comment };
    const cell = example[column.field];
    if (cell) sheet[utils.encode_cell({ r: 1, c })] = cell;
  });
  sheet['!ref'] = utils.encode_range({ s: { r: 0, c: 0 }, e: { r: 1, c: TEMPLATE_COLUMNS.length - 1 } });
  sheet['!cols'] = TEMPLATE_COLUMNS.map((column) => {
    const value = example[column.field]?.v;
    return widthOf([column.title, typeof value === 'string' ? value : '']);
  });
  return sheet;
}

/**
 * The Allowed Values sheet: crime types with their subtypes (one line per subtype), countries,
 * sources of record, NAMLC organizations and Yes/No, each list in columns of its own.
 */
function allowedValuesSheet({ sources, countries }: TemplateOptions): WorkSheet {
  const crimeTypes = CRIME_TYPES.flatMap((type) => CRIME_SUBTYPES[type].map((subtype) => [type, subtype]));
  const lists: Array<{ headers: string[]; rows: string[][] }> = [
    { headers: ['Crime Type', 'Crime Subtype'], rows: crimeTypes },
    { headers: ['Country'], rows: countries.map((c) => [c]) },
    { headers: ['Source of Record'], rows: sources.map((s) => [s]) },
    { headers: ['NAMLC Organization'], rows: NAMLC_ORGANIZATIONS.map((o) => [o]) },
    { headers: ['Yes/No (International Nexus, Cyber-Assisted)'], rows: [['Yes'], ['No']] },
  ];
  const height = Math.max(...lists.map((l) => l.rows.length)) + 1;
  const grid: string[][] = Array.from({ length: height }, () => []);
  const cols: Array<{ wch: number }> = [];
  let at = 0;
  for (const list of lists) {
    list.headers.forEach((header, i) => {
      grid[0]![at + i] = header;
      list.rows.forEach((row, r) => {
        grid[r + 1]![at + i] = row[i] ?? '';
      });
      cols[at + i] = widthOf([header, ...list.rows.map((row) => row[i] ?? '')]);
    });
    at += list.headers.length;
    cols[at] = { wch: 3 };
    at += 1; // an empty column between lists
  }
  const sheet = utils.aoa_to_sheet(grid);
  sheet['!cols'] = cols;
  return sheet;
}

/** The template workbook as .xlsx bytes. */
export function buildTemplate(options: TemplateOptions): Uint8Array {
  const workbook = utils.book_new();
  utils.book_append_sheet(workbook, recordsSheet(options.sources), RECORDS_SHEET);
  utils.book_append_sheet(workbook, allowedValuesSheet(options), ALLOWED_VALUES_SHEET);
  const out = write(workbook, { type: 'array', bookType: 'xlsx', compression: true }) as ArrayBuffer;
  return new Uint8Array(out);
}
