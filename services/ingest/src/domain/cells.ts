/**
 * One spreadsheet cell → the JSON value `POST /api/records` takes for its column (issue 17): values
 * only, never a formula; dates as `YYYY-MM-DD`, amounts as decimal strings, Yes/No as booleans,
 * text as typed. A cell that cannot be read so is a message for its row, not a guess.
 */
import { SSF } from 'xlsx';
import type { ColumnKind } from './columns.ts';

/** A cell as SheetJS reads it: type, value and, for a formula cell, its formula. */
export interface SheetCell {
  t: string;
  v?: unknown;
  f?: string;
  F?: string;
}

/** The value for the record body, or the message explaining why the cell has none. */
export type CellResult = { value: string | boolean } | { error: string };

export interface CellOptions {
  /** Excel's 1904 date system (the workbook's flag): serial 0 is 1904-01-01. */
  date1904: boolean;
  maxCellChars: number;
}

/** The messages of a cell that cannot be read; each is shown as "Row {row}, {field}: {message}". */
export const CELL_MESSAGES = {
  formula: 'formulas are not accepted; paste values',
  tooLong: (max: number) => `the cell is longer than ${max.toLocaleString('en-US')} characters`,
  errorValue: (code: string) => `the cell shows an error (${code}); enter a value`,
  date: 'must be a date (YYYY-MM-DD)',
  ambiguousDate: 'ambiguous date: write it as YYYY-MM-DD',
  amount: 'must be an amount such as 1234.50',
  decimals: 'must have at most 2 decimals',
  boolean: 'must be Yes or No',
} as const;

/** Whether a cell holds nothing: no value, or text of spaces only. A formula's result counts. */
export function isEmptyCell(cell: SheetCell | null | undefined): boolean {
  if (!cell || cell.v === undefined || cell.v === null) return true;
  return typeof cell.v === 'string' && cell.v.trim() === '';
}

/** Converts a non-empty cell for a column of the given kind. */
export function convertCell(cell: SheetCell, kind: ColumnKind, options: CellOptions): CellResult {
  // SheetJS never evaluates a formula, but it keeps the result Excel last saved; that result is not
  // what the person typed and may be stale, so it is not taken.
  if (cell.f !== undefined || cell.F !== undefined) return { error: CELL_MESSAGES.formula };
  if (cell.t === 'e') return { error: CELL_MESSAGES.errorValue(excelError(cell.v)) };
  if (typeof cell.v === 'string' && cell.v.length > options.maxCellChars) {
    return { error: CELL_MESSAGES.tooLong(options.maxCellChars) };
  }
  switch (kind) {
    case 'text':
      return { value: cellText(cell.v) };
    case 'date':
      return dateOf(cell.v, options.date1904);
    case 'amount':
      return amountOf(cell.v);
    case 'boolean':
      return booleanOf(cell.v);
  }
}

/** Text of a value as typed; a number without ".0" or exponent noise, as Excel shows it. */
export function cellText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return String(value);
}

/**
 * A number as Excel shows it in a General cell: 15 significant digits (all a cell keeps), never in
 * exponent form: 12345 → "12345", 0.1 + 0.2 → "0.3", 1e21 → "1000000000000000000000".
 */
export function numberText(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const rounded = Number(n.toPrecision(15));
  if (Number.isInteger(rounded)) return BigInt(rounded).toString();
  const text = String(rounded);
  if (!text.includes('e')) return text;
  // Tiny fractions: 1e-7 → "0.0000001".
  return rounded.toFixed(20).replace(/0+$/, '');
}

/** The error values a cell can show, by the code SheetJS reads them as. */
export const EXCEL_ERRORS: Readonly<Record<number, string>> = {
  0: '#NULL!',
  7: '#DIV/0!',
  15: '#VALUE!',
  23: '#REF!',
  29: '#NAME?',
  36: '#NUM!',
  42: '#N/A',
  43: '#GETTING_DATA',
};

function excelError(code: unknown): string {
  return (typeof code === 'number' && EXCEL_ERRORS[code]) || '#ERROR';
}

/** The last serial Excel can show as a date (9999-12-31). */
const MAX_DATE_SERIAL = 2_958_465;
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY_FIRST_DATE = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/;

const pad = (n: number | string, width: number) => String(n).padStart(width, '0');
const ymd = (y: number | string, m: number | string, d: number | string) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;

/**
 * A date from an Excel serial number (its day; a time of day is dropped), from text `YYYY-MM-DD`
 * (a time after it is dropped), or from text `DD/MM/YYYY` when it cannot be read as month first:
 * the day is after the 12th, or day and month are the same. Whether the day exists is left to the
 * record schema, which says so as for a single create.
 */
export function dateOf(value: unknown, date1904: boolean): CellResult {
  if (typeof value === 'number') return dateOfSerial(value, date1904);
  if (typeof value === 'string') return dateOfText(value.trim());
  if (value instanceof Date && !Number.isNaN(value.getTime())) return { value: value.toISOString().slice(0, 10) };
  return { error: CELL_MESSAGES.date };
}

function dateOfSerial(serial: number, date1904: boolean): CellResult {
  const day = Math.floor(serial);
  if (!Number.isFinite(serial) || day < 1 || day > MAX_DATE_SERIAL) return { error: CELL_MESSAGES.date };
  const parts = SSF.parse_date_code(day, { date1904 }) as { y: number; m: number; d: number } | null;
  if (!parts) return { error: CELL_MESSAGES.date };
  return { value: ymd(parts.y, parts.m, parts.d) };
}

function dateOfText(text: string): CellResult {
  const iso = ISO_DATE.exec(text);
  if (iso) return { value: ymd(iso[1]!, iso[2]!, iso[3]!) };
  const dayFirst = DAY_FIRST_DATE.exec(text);
  if (!dayFirst) return { error: CELL_MESSAGES.date };
  const [first, second, year] = [Number(dayFirst[1]), Number(dayFirst[2]), dayFirst[3]!];
  if (first === 0 || second === 0 || second > 12) return { error: CELL_MESSAGES.date }; // month first (US), or none
  if (first <= 12 && first !== second) return { error: CELL_MESSAGES.ambiguousDate };
  return { value: ymd(year, second, first) };
}

const PLAIN_AMOUNT = /^\d+(?:\.\d+)?$/;
const GROUPED_AMOUNT = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * An amount as a decimal string: a number, or text of digits with an optional leading "$",
 * thousands separators ("12,500.50") and at most 2 decimals. Its sign and size are left to the
 * record schema.
 */
export function amountOf(value: unknown): CellResult {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { error: CELL_MESSAGES.amount };
    text = numberText(value);
  } else if (typeof value === 'string') {
    text = value.trim().replace(/^\$\s*/, '');
    const negative = text.startsWith('-');
    if (negative)
      text = text
        .slice(1)
        .trim()
        .replace(/^\$\s*/, '');
    if (!PLAIN_AMOUNT.test(text) && !GROUPED_AMOUNT.test(text)) return { error: CELL_MESSAGES.amount };
    text = (negative ? '-' : '') + text.replaceAll(',', '');
  } else {
    return { error: CELL_MESSAGES.amount };
  }
  const decimals = text.split('.')[1] ?? '';
  if (decimals.length > 2) return { error: CELL_MESSAGES.decimals };
  return { value: text };
}

const TRUE_WORDS = new Set(['yes', 'y', 'true', '1']);
const FALSE_WORDS = new Set(['no', 'n', 'false', '0']);

/** Yes/No, Y/N, TRUE/FALSE or 1/0 in any letter case, or a boolean cell. */
export function booleanOf(value: unknown): CellResult {
  if (typeof value === 'boolean') return { value };
  if (value === 1 || value === 0) return { value: value === 1 };
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return { value: true };
    if (FALSE_WORDS.has(word)) return { value: false };
  }
  return { error: CELL_MESSAGES.boolean };
}
