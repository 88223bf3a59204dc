/**
 * The bound on an .xlsx's cells (issue 37): a workbook is refused when its sheets hold more than
 * `maxCells` cells — rows × columns of each sheet's `<dimension>`, and the cells themselves counted
 * as the parts are unpacked — before SheetJS parses anything. Bytes alone do not bound the work: a
 * 0.6 MB file held a 152 MB sheet of 100,000 rows × 100 cells (under the 250 MB unpacked cap) that
 * took SheetJS 90–100 s and 1.37 GB.
 *
 * Every part is counted, whatever its name, so that no part read as a sheet escapes: only a cell
 * element (`<c …>`, with or without a namespace prefix) is counted, and no other part of a
 * workbook has elements of that name (text inside XML is escaped, `&lt;c`). A dimension is the
 * sender's word and may be missing or small; the count is not.
 */
import { createInflateRaw } from 'node:zlib';

/** Where a part of the archive is and how it is packed (file-check.ts's `ZipEntry`). */
interface Part {
  method: 0 | 8;
  compressedSize: number;
  uncompressedSize: number;
  dataOffset: number;
}

/** Rows and columns a sheet's dimension spans ("A1:O100001" → 100,001 × 15). */
export interface SheetSpan {
  rows: number;
  columns: number;
}

/** Excel's largest sheet: 1,048,576 rows × 16,384 columns (XFD). */
const MAX_SHEET_ROWS = 1_048_576;
const MAX_SHEET_COLUMNS = 16_384;

/** The column number of letters ("A" → 1, "XFD" → 16,384). */
function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

const CELL_REF = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/;

/**
 * The span of a range reference (`A1:O100001`, `B2`), or undefined when it is not one. Ranges
 * beyond Excel's sheet are clamped to it.
 */
export function spanOfRef(ref: string): SheetSpan | undefined {
  const ends = ref.trim().split(':');
  if (ends.length > 2) return undefined;
  const [first, last = first] = ends;
  const a = CELL_REF.exec(first ?? '');
  const b = CELL_REF.exec(last ?? '');
  if (!a || !b) return undefined;
  const clamp = (n: number, max: number) => Math.min(Math.max(n, 1), max);
  const rows = Math.abs(clamp(Number(b[2]), MAX_SHEET_ROWS) - clamp(Number(a[2]), MAX_SHEET_ROWS)) + 1;
  const columns =
    Math.abs(
      clamp(columnNumber(b[1] as string), MAX_SHEET_COLUMNS) - clamp(columnNumber(a[1] as string), MAX_SHEET_COLUMNS),
    ) + 1;
  return { rows, columns };
}

/** `<dimension ref="…"/>` (any prefix) in the start of a sheet's XML. */
const DIMENSION = /<(?:[\w.-]+:)?dimension\b[^>]*?\bref\s*=\s*["']([^"']*)["']/;

/** The span a sheet's XML declares, from its start (where `<dimension>` is), or undefined. */
export function declaredSpan(xmlStart: string): SheetSpan | undefined {
  const m = DIMENSION.exec(xmlStart);
  return m ? spanOfRef(m[1] as string) : undefined;
}

/** How much of a part's start is searched for its dimension. */
const DIMENSION_WINDOW = 64 * 1024;

/**
 * A part's `<dimension>`, looked for in its first DIMENSION_WINDOW bytes as they are unpacked:
 * `take` answers the span once, with the chunk it is found in, and nothing after.
 */
export function dimensionReader() {
  let start: string | undefined = '';
  return {
    take(chunk: Uint8Array): SheetSpan | undefined {
      if (start === undefined) return undefined;
      const room = chunk.subarray(0, DIMENSION_WINDOW - start.length);
      start += Buffer.from(room.buffer, room.byteOffset, room.byteLength).toString('latin1');
      const span = declaredSpan(start);
      if (span || start.length >= DIMENSION_WINDOW) start = undefined;
      return span;
    },
  };
}

/**
 * A part of the archive as it unpacks, a chunk at a time (zlib's streaming inflater, destroyed
 * when the caller stops; a stored part is one chunk). Memory is a chunk at a time.
 */
export async function* partChunks(bytes: Uint8Array, entry: Part): AsyncGenerator<Buffer> {
  const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  if (entry.method === 0) {
    yield Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    return;
  }
  const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
  inflater.end(data);
  try {
    yield* inflater as AsyncIterable<Buffer>;
  } finally {
    inflater.destroy();
  }
}

/** A cell element's start tag, as SheetJS splits a row into cells. */
const CELL_TAG = /<(?:[\w.-]+:)?c[\s/>]/g;
/** Text kept from one chunk to the next: a tag cut at the chunk's end (longer: not a cell's). */
const MAX_CARRY = 256;

/** What the count found: cells counted, and the span the sheets' dimensions declare in all. */
export interface CellCount {
  cells: number;
  declared: number;
  /** The largest declared span of one sheet (for the message). */
  largest?: SheetSpan;
}

/**
 * Unpacks each part of an .xlsx (already checked by `checkUpload`) as a stream and counts its
 * cells, stopping as soon as the count or the sheets' declared spans pass `maxCells`: the count
 * then says how far it got (`cells > maxCells` or `declared > maxCells`). Memory is a chunk at a
 * time.
 */
export async function countCells(bytes: Uint8Array, entries: readonly Part[], maxCells: number): Promise<CellCount> {
  const count: CellCount = { cells: 0, declared: 0 };
  for (const entry of entries) {
    if (entry.uncompressedSize === 0) continue;
    await countPart(bytes, entry, count, maxCells);
    if (count.cells > maxCells || count.declared > maxCells) break;
  }
  return count;
}

async function countPart(bytes: Uint8Array, entry: Part, count: CellCount, maxCells: number): Promise<void> {
  const dimension = dimensionReader();
  let carry = '';
  for await (const chunk of partChunks(bytes, entry)) {
    const span = dimension.take(chunk);
    if (span) {
      count.declared += span.rows * span.columns;
      if (!count.largest || span.rows * span.columns > count.largest.rows * count.largest.columns) {
        count.largest = span;
      }
    }
    const all = carry + chunk.toString('latin1');
    const last = all.lastIndexOf('<');
    const scan = last < 0 ? all : all.slice(0, last);
    carry = last < 0 || all.length - last > MAX_CARRY ? '' : all.slice(last);
    count.cells += matches(scan);
    if (count.cells > maxCells || count.declared > maxCells) break;
  }
  count.cells += matches(carry);
}

function matches(text: string): number {
  let n = 0;
  CELL_TAG.lastIndex = 0;
  while (CELL_TAG.exec(text)) n++;
  return n;
}
