/**
 * An upload's rows as the job sends them (issue 37: all of it runs in the parse worker, off the
 * service's event loop): the cells counted before anything is parsed (an .xlsx), the workbook read
 * (workbook.ts), incident numbers repeated inside the file marked, and the incident numbers of the
 * rows the job will send, for the upload's plan (docs/adr/0015).
 */
import { INCIDENT_NUMBER_TAKEN, incidentKey, RecordFieldsSchema, type RecordImportPlanRequest } from '@nrad/contracts';
import { countCells } from './cell-count.ts';
import { readZipDirectory, UploadRefused, type WorkbookKind, type ZipEntry } from './file-check.ts';
import {
  type ReadLimits,
  readRows,
  readXlsxRows,
  type SheetRow,
  type SheetTable,
  WORKBOOK_MESSAGES,
  WorkbookRefused,
} from './workbook.ts';

export interface UploadReadLimits extends ReadLimits {
  maxCells: number;
  /** The upload check's bound on an .xlsx's unpacked parts (their directory is read again). */
  maxUncompressedBytes: number;
}

export interface UploadRows {
  /** The non-blank rows below the header, in sheet order, each with the problems found here. */
  rows: SheetRow[];
  /** The incident number of each row the job will send (a row with no problem here), in row order. */
  planRows: RecordImportPlanRequest['rows'];
  /** Which reader read the workbook: the stream reader (xlsx-stream.ts) or SheetJS whole. */
  reader: 'stream' | 'sheetjs';
}

/**
 * Reads an upload's rows, or throws `WorkbookRefused` with the message for the uploader: the
 * workbook as a whole cannot be taken (workbook.ts), or an .xlsx holds more than `maxCells` cells
 * (counted before SheetJS is given the file).
 */
export async function readUploadRows(
  bytes: Uint8Array,
  kind: WorkbookKind,
  limits: UploadReadLimits,
): Promise<UploadRows> {
  let entries: ZipEntry[] | undefined;
  if (kind === 'xlsx') {
    try {
      entries = readZipDirectory(bytes, limits.maxUncompressedBytes);
    } catch (err) {
      // Checked when it was uploaded; a file that no longer passes is refused as readRows would.
      if (err instanceof UploadRefused) throw new WorkbookRefused(err.message);
      throw err;
    }
    const count = await countCells(bytes, entries, limits.maxCells);
    if (count.cells > limits.maxCells || count.declared > limits.maxCells) {
      throw new WorkbookRefused(
        WORKBOOK_MESSAGES.tooManyCells(limits.maxCells, count.declared > limits.maxCells ? count.largest : undefined),
      );
    }
  }
  const { table, reader } = await readTable(bytes, kind, entries, limits);
  const { rows } = table;
  markRepeatedNumbers(rows);
  return { rows, planRows: planRowsOf(rows), reader };
}

/**
 * The workbook's rows: an .xlsx of the common shape read as a stream (readXlsxRows), any other
 * file — an .xls, an .xlsx that reader leaves to SheetJS or that it could not read — by SheetJS
 * whole (readRows), which then decides alone: the same rows either way, only the time and memory
 * differ.
 */
async function readTable(
  bytes: Uint8Array,
  kind: WorkbookKind,
  entries: readonly ZipEntry[] | undefined,
  limits: UploadReadLimits,
): Promise<{ table: SheetTable; reader: UploadRows['reader'] }> {
  if (entries) {
    try {
      return { table: await readXlsxRows(bytes, entries, limits), reader: 'stream' };
    } catch (err) {
      if (err instanceof WorkbookRefused) throw err;
      // StreamUnsupported (a shape left to SheetJS), or anything the stream reader met: SheetJS reads it.
    }
  }
  return { table: readRows(bytes, kind, limits), reader: 'sheetjs' };
}

/**
 * An incident number repeated inside the file: the first occurrence counts (valid or not), each
 * later one is its row's error — so fixing the first row and uploading again does not turn up a
 * clash that the first upload hid.
 */
export function markRepeatedNumbers(rows: SheetRow[]): void {
  const seen = new Set<string>();
  for (const r of rows) {
    const number = r.body.incidentNumber;
    if (typeof number !== 'string' || !number.trim()) continue;
    const key = incidentKey(number);
    if (!seen.has(key)) seen.add(key);
    else if (!r.errors.some((e) => e.field === 'incidentNumber')) {
      r.errors.push({ row: r.row, field: 'incidentNumber', message: INCIDENT_NUMBER_TAKEN });
    }
  }
}

/** The rows the job will send (no problem found here), with their incident numbers, in row order. */
function planRowsOf(rows: readonly SheetRow[]): RecordImportPlanRequest['rows'] {
  const numbered: RecordImportPlanRequest['rows'] = [];
  for (const r of rows) {
    if (r.errors.length) continue; // never sent
    const number = RecordFieldsSchema.shape.incidentNumber.safeParse(r.body.incidentNumber);
    if (number.success) numbered.push({ row: r.row, incidentNumber: number.data });
  }
  return numbered;
}
