/**
 * Reads the records of an uploaded workbook (issue 17): the first sheet whose first row holds
 * headers, its columns matched to record fields, and each non-blank row below turned into the body
 * `POST /api/records` takes, with a message for each cell that cannot be read. Values only:
 * SheetJS never evaluates a formula, and a formula cell is refused rather than its saved result
 * taken. Nothing untrusted becomes an object key: headers are looked up in a Map, bodies are built
 * from the known field names only, and sheets are found by own property.
 *
 * Call it only on bytes that passed `checkUpload`: SheetJS unpacks every part of an .xlsx in memory,
 * and that check is what bounds their size.
 */
import { ERROR_CODES } from '@nrad/contracts';
import { read, utils, type WorkBook, type WorkSheet } from 'xlsx';
import { type SheetSpan, spanOfRef } from './cell-count.ts';
import { type CellOptions, cellText, convertCell, isEmptyCell, type SheetCell } from './cells.ts';
import {
  ALLOWED_VALUES_SHEET,
  HEADER_ALIASES,
  type RecordField,
  TEMPLATE_COLUMNS,
  type TemplateColumn,
} from './columns.ts';
import { isOle2, isZip, ole2Contents, UPLOAD_MESSAGES, type WorkbookKind, type ZipEntry } from './file-check.ts';
import { streamWorkbook } from './xlsx-stream.ts';

/** A problem with one cell, shown as "Row {row}, {field}: {message}" (SPEC §2, §3). */
export interface RowError {
  /** The row number a person sees in the spreadsheet (the header is row 1). */
  row: number;
  field: RecordField;
  message: string;
}

/**
 * The fields read from one row, as `POST /api/records` takes them: text, dates `YYYY-MM-DD`,
 * amounts as decimal strings, booleans. An empty cell, and a cell with an error, leave their field
 * out. Only field names of TEMPLATE_COLUMNS are ever keys.
 */
export type RecordBody = Partial<Record<RecordField, string | boolean>>;

export interface SheetRow {
  row: number;
  body: RecordBody;
  /** The cells that could not be read; their fields are not in `body`. */
  errors: RowError[];
}

export interface SheetTable {
  /** The non-blank rows below the header, in sheet order. */
  rows: SheetRow[];
  /** Things the uploader should know that refuse nothing (columns that were ignored). */
  warnings: string[];
}

export interface ReadLimits {
  /** Data rows a file may have (below the header). */
  maxRows: number;
  /** Characters a cell may hold. */
  maxCellChars: number;
  /**
   * Cells (rows × columns of each sheet read) an .xls may have in all, checked once it is read (its
   * size bounds the read). An .xlsx is counted before it is parsed (cell-count.ts), not here.
   */
  maxCells?: number;
}

/**
 * A workbook refused as a whole: `message` is for the person who uploaded it. `code` and `status`
 * are those of UploadRefused's 400s, for callers that treat both alike.
 */
export class WorkbookRefused extends Error {
  override name = 'WorkbookRefused';
  readonly code = ERROR_CODES.validation;
  readonly status = 400;
}

/** The texts of the refusals of a whole file. */
export const WORKBOOK_MESSAGES = {
  damaged: UPLOAD_MESSAGES.damaged,
  passwordProtected: UPLOAD_MESSAGES.passwordProtected,
  empty: 'The file is empty: it has no header row.',
  headerNotFirst: 'The first row of the sheet must hold the column headers (such as Incident Number).',
  noRecords: 'The file has no records below the header row.',
  tooManyCells: UPLOAD_MESSAGES.tooManyCells,
  tooManyRows: (maxRows: number) => {
    const limit = maxRows.toLocaleString('en-US');
    return `The file has more than ${limit} rows; split it into files of at most ${limit} rows.`;
  },
  missingColumns: (titles: readonly string[]) => `Missing columns: ${titles.join(', ')}`,
  duplicateColumns: (title: string, columns: readonly string[]) =>
    `Columns ${listed(columns)} are all ${title}; keep one of them.`,
  ignoredColumn: (header: string, column: string) =>
    `Column ${column} ("${header}") is not a record field; it was ignored.`,
  moreIgnored: (count: number) => `${count} more columns are not record fields; they were ignored.`,
} as const;

/** Unknown columns named one by one in the warnings; the rest are counted. */
const MAX_IGNORED_NAMED = 20;
/** Header text shown in a warning, at most. */
const MAX_HEADER_SHOWN = 60;

/** "A", "A and D", "A, D and F". */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * A header as compared: lower case, accents removed, only letters and digits
 * ("Case Amount ($)" → "caseamount", "INCIDENT_NUMBER" → "incidentnumber").
 */
export function normalizeHeader(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Every header a column is known by: its title, its field name, its aliases. */
const COLUMN_BY_HEADER: ReadonlyMap<string, TemplateColumn> = new Map(
  TEMPLATE_COLUMNS.flatMap((column) =>
    [column.title, column.field, ...(HEADER_ALIASES[column.field] ?? [])].map(
      (header) => [normalizeHeader(header), column] as const,
    ),
  ),
);

/** The column a header names, if any. */
export function columnOfHeader(header: string): TemplateColumn | undefined {
  return COLUMN_BY_HEADER.get(normalizeHeader(header));
}

type DenseRow = Array<SheetCell | undefined>;
type DenseRows = Array<DenseRow | undefined>;

/**
 * The records of a workbook, or `WorkbookRefused` when the file as a whole cannot be taken:
 * damaged or password-protected, no header row, no records, a required column missing or a column
 * given twice, more than `maxRows` rows.
 */
export function readRows(bytes: Uint8Array, kind: WorkbookKind, limits: ReadLimits): SheetTable {
  const workbook = parseWorkbook(bytes, kind, limits.maxRows);
  const options: CellOptions = {
    date1904: Boolean(workbook.Workbook?.WBProps?.date1904),
    maxCellChars: limits.maxCellChars,
  };
  // An .xlsx's cells were counted before SheetJS was given it (upload-rows.ts); an .xls's are here.
  const checks =
    kind === 'xls' && limits.maxCells !== undefined ? () => checkCells(workbook, limits.maxCells!) : undefined;
  let anyContent = false;
  for (const name of workbook.SheetNames) {
    if (isAllowedValuesSheet(name)) continue;
    const sheet = sheetNamed(workbook, name);
    const rows = sheet?.['!data'] as DenseRows | undefined;
    if (!sheet || !Array.isArray(rows)) continue;
    const table = sheetTable(limits, options);
    rows.forEach((cells, index) => {
      if (cells) table.row(index, cells);
    });
    // SheetJS notes the full range as `!fullref` when the dimension goes past the rows it read.
    const read = table.end(typeof sheet['!fullref'] === 'string', checks);
    if (read) return read;
    anyContent ||= table.anyContent;
  }
  throw noDataSheet(anyContent);
}

/**
 * readRows for an .xlsx, its sheets read as streams a row at a time (xlsx-stream.ts) instead of
 * parsed whole by SheetJS: the same rows, warnings and refusals (sheetTable's, for both), in a
 * fraction of the memory and time. `entries` is the archive's directory (file-check.ts's
 * readZipDirectory). Throws StreamUnsupported for a workbook of another shape than the common one:
 * read it with readRows.
 */
export async function readXlsxRows(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
  limits: ReadLimits,
): Promise<SheetTable> {
  const book = await streamWorkbook(bytes, entries, sheetRowsToRead(limits.maxRows));
  const options: CellOptions = { date1904: book.date1904, maxCellChars: limits.maxCellChars };
  let anyContent = false;
  for (const sheet of book.sheets) {
    if (isAllowedValuesSheet(sheet.name)) continue;
    const table = sheetTable(limits, options);
    for await (const { index, cells } of sheet.rows()) table.row(index, cells);
    const read = table.end(sheet.truncated());
    if (read) return read;
    anyContent ||= table.anyContent;
  }
  throw noDataSheet(anyContent);
}

/**
 * One sheet's rows turned into its table, a row at a time, whichever reader gives them: `row` for
 * each row that holds a cell, in order (0-based index, cells by column); then `end`, with whether
 * the reader cut the sheet short at `maxRows` and, for an .xls, the check of its cells. `end`
 * answers undefined when the sheet is not the data sheet (its first row holds nothing;
 * `anyContent` then says whether any other row did), else the table or the refusal of the file:
 * the header's, too many rows, the cells' (`checks`), no records — in that order, once the whole
 * sheet is read (as SheetJS reads all of it before any is looked at).
 */
function sheetTable(limits: ReadLimits, options: CellOptions) {
  let header: { columns: MappedColumn[]; warnings: string[] } | undefined;
  let refusal: WorkbookRefused | undefined;
  let beyond = false;
  let anyContent = false;
  const out: SheetRow[] = [];
  return {
    get anyContent() {
      return anyContent;
    },
    row(index: number, cells: DenseRow): void {
      const content = cells.some((cell) => !isEmptyCell(cell));
      if (index === 0) {
        if (!content) return;
        try {
          header = readHeader(cells);
        } catch (err) {
          if (!(err instanceof WorkbookRefused)) throw err;
          refusal = err;
        }
        return;
      }
      anyContent ||= content;
      if (!content || !header) return;
      // The row past maxRows that SheetJS keeps, to see that there are more.
      if (index > limits.maxRows) beyond = true;
      else out.push(readRow(cells, index + 1, header.columns, options));
    },
    end(truncated: boolean, checks?: () => void): SheetTable | undefined {
      if (refusal) throw refusal;
      if (!header) return undefined;
      if (truncated || beyond) throw new WorkbookRefused(WORKBOOK_MESSAGES.tooManyRows(limits.maxRows));
      checks?.();
      if (out.length === 0) throw new WorkbookRefused(WORKBOOK_MESSAGES.noRecords);
      return { rows: out, warnings: header.warnings };
    },
  };
}

/** The template's Allowed Values sheet is never the data sheet. */
const isAllowedValuesSheet = (name: string) => normalizeHeader(name) === normalizeHeader(ALLOWED_VALUES_SHEET);

/** No sheet's first row holds a header: a file of nothing, or of rows below a blank first row. */
const noDataSheet = (anyContent: boolean) =>
  new WorkbookRefused(anyContent ? WORKBOOK_MESSAGES.headerNotFirst : WORKBOOK_MESSAGES.empty);

/**
 * Rows SheetJS keeps: the header, `maxRows` rows and one more, to see that there are more. Rows
 * beyond are skipped unread, which bounds the memory of a sheet of a million tiny rows. The rows
 * must therefore lie within the first `maxRows + 1` rows of the sheet, blank rows included.
 */
const sheetRowsToRead = (maxRows: number) => maxRows + 2;

function parseWorkbook(bytes: Uint8Array, kind: WorkbookKind, maxRows: number): WorkBook {
  // SheetJS reads anything (CSV, HTML, SYLK…); only the kind the name says is taken.
  if (kind === 'xlsx' ? !isZip(bytes) : !isOle2(bytes)) {
    const encrypted = isOle2(bytes) && ole2Contents(bytes)?.encrypted === true;
    throw new WorkbookRefused(encrypted ? WORKBOOK_MESSAGES.passwordProtected : WORKBOOK_MESSAGES.damaged);
  }
  try {
    return read(bytes, {
      type: 'array',
      dense: true,
      sheetRows: sheetRowsToRead(maxRows),
      // Formulas are read as text so that a formula cell can be refused; nothing evaluates them.
      cellFormula: true,
      cellHTML: false,
      cellText: false,
      cellDates: false,
      cellNF: false,
      cellStyles: false,
      bookVBA: false,
    });
  } catch (err) {
    // SheetJS's errors for an encrypted file vary (some have no message): look for the encryption.
    const password =
      (err instanceof Error && /password/i.test(err.message ?? '')) ||
      (isOle2(bytes) && ole2Contents(bytes)?.encrypted === true);
    throw new WorkbookRefused(password ? WORKBOOK_MESSAGES.passwordProtected : WORKBOOK_MESSAGES.damaged);
  }
}

/** Refuses a workbook whose sheets, as read, span more than `maxCells` cells in all. */
function checkCells(workbook: WorkBook, maxCells: number): void {
  let cells = 0;
  let largest: SheetSpan | undefined;
  for (const name of workbook.SheetNames) {
    const ref = sheetNamed(workbook, name)?.['!ref'];
    const span = typeof ref === 'string' ? spanOfRef(ref) : undefined;
    if (!span) continue;
    cells += span.rows * span.columns;
    if (!largest || span.rows * span.columns > largest.rows * largest.columns) largest = span;
  }
  if (cells > maxCells) throw new WorkbookRefused(WORKBOOK_MESSAGES.tooManyCells(maxCells, largest));
}

/**
 * A sheet by name, by own property only. SheetJS keeps sheets on a plain object, so a sheet named
 * "__proto__" became that object's prototype: it is found there, and nothing else is.
 */
function sheetNamed(workbook: WorkBook, name: string): WorkSheet | undefined {
  if (Object.hasOwn(workbook.Sheets, name)) return workbook.Sheets[name];
  if (name !== '__proto__') return undefined;
  const proto: unknown = Object.getPrototypeOf(workbook.Sheets);
  return proto !== Object.prototype && proto !== null && typeof proto === 'object' ? (proto as WorkSheet) : undefined;
}

interface MappedColumn {
  index: number;
  column: TemplateColumn;
}

/** The columns of the header row that are record fields; the others become warnings. */
function readHeader(header: DenseRow): { columns: MappedColumn[]; warnings: string[] } {
  const found = new Map<RecordField, MappedColumn[]>();
  const warnings: string[] = [];
  let ignored = 0;
  header.forEach((cell, index) => {
    if (!cell || isEmptyCell(cell)) return;
    const text = cellText(cell.v).trim();
    const column = columnOfHeader(text);
    if (column) {
      found.set(column.field, [...(found.get(column.field) ?? []), { index, column }]);
      return;
    }
    ignored++;
    if (ignored <= MAX_IGNORED_NAMED)
      warnings.push(WORKBOOK_MESSAGES.ignoredColumn(shown(text), utils.encode_col(index)));
  });
  if (ignored > MAX_IGNORED_NAMED) warnings.push(WORKBOOK_MESSAGES.moreIgnored(ignored - MAX_IGNORED_NAMED));

  for (const [, same] of found) {
    if (same.length > 1) {
      const letters = same.map((m) => utils.encode_col(m.index));
      throw new WorkbookRefused(WORKBOOK_MESSAGES.duplicateColumns(same[0]!.column.title, letters));
    }
  }
  const missing = TEMPLATE_COLUMNS.filter((c) => c.required && !found.has(c.field)).map((c) => c.title);
  if (missing.length > 0) throw new WorkbookRefused(WORKBOOK_MESSAGES.missingColumns(missing));
  return { columns: [...found.values()].flat().sort((a, b) => a.index - b.index), warnings };
}

/** Header text as quoted in a warning: one line, not too long. */
function shown(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_HEADER_SHOWN ? `${line.slice(0, MAX_HEADER_SHOWN)}…` : line;
}

/** One row's body and the messages of the cells that could not be read. */
function readRow(cells: DenseRow, row: number, columns: readonly MappedColumn[], options: CellOptions): SheetRow {
  const body: RecordBody = {};
  const errors: RowError[] = [];
  for (const { index, column } of columns) {
    const cell = cells[index];
    if (!cell) continue;
    const hasFormula = cell.f !== undefined || cell.F !== undefined;
    if (!hasFormula && isEmptyCell(cell)) continue;
    const result = convertCell(cell, column.kind, options);
    if ('error' in result) errors.push({ row, field: column.field, message: result.error });
    else body[column.field] = result.value;
  }
  return { row, body, errors };
}
