/**
 * An .xlsx's sheets read as streams, a row at a time (issue 37's ingest figures): SheetJS unpacks
 * every part into one string and splits it into row and cell strings and cell objects before the
 * first row can be looked at — some 420 MB and 5–7 s for the 100,000-row benchmark file, all at
 * once, on one core. Here each sheet's XML is inflated a chunk at a time and every row is handed
 * to the caller as SheetJS would have read it (workbook.ts turns it into a record body at once),
 * so memory is the shared strings, a chunk and the rows read so far.
 *
 * The values are SheetJS's own: the same steps in the same order (its attribute reader, XML and
 * `_xHHHH_` unescaping, UTF-8 decoding of the part read as bytes, shared and inline strings, rich
 * text runs, the cell types and its `sheetRows` cut) for the options readRows gives SheetJS
 * (dense, formulas kept, no styles, dates as serial numbers); xlsx-stream.test.ts compares the
 * rows of both readers on generated and hand-written workbooks. Only the common shape of a
 * workbook is read here — the parts where Excel, LibreOffice, Google Sheets and SheetJS put them,
 * no formula, no `t="d"` cell, rows and cells in order — and anything else (a part elsewhere, a
 * formula, a namespace prefix on the workbook, a UTF-16 part, an error where SheetJS would drop
 * a sheet) throws StreamUnsupported before a row is used: the caller then gives the whole file to
 * SheetJS, which decides as before. So a file is never read differently, only faster.
 *
 * The part bytes are those `checkUpload` bounded (their unpacked sizes) and the worker counted
 * (their cells, cell-count.ts).
 */

import { utils } from 'xlsx';
import { partChunks } from './cell-count.ts';
import { EXCEL_ERRORS, type SheetCell } from './cells.ts';
import type { ZipEntry } from './file-check.ts';

/** This reader does not read the file (a shape it leaves to SheetJS): read it with SheetJS. */
export class StreamUnsupported extends Error {
  override name = 'StreamUnsupported';
}

const unsupported = (why: string) => new StreamUnsupported(why);

/** One row of a sheet as SheetJS's dense sheet holds it: `index` 0-based, cells by column. */
export interface StreamedRow {
  index: number;
  cells: Array<SheetCell | undefined>;
}

export interface StreamedSheet {
  name: string;
  /**
   * Whether SheetJS would mark the sheet truncated (`!fullref`): its dimension ends past
   * `sheetRows`. Known once `rows` has been iterated (the dimension may follow the data).
   */
  truncated(): boolean;
  /** The rows holding at least one cell, in order, up to `sheetRows` (those beyond are skipped). */
  rows(): AsyncGenerator<StreamedRow>;
}

export interface StreamedWorkbook {
  date1904: boolean;
  sheets: StreamedSheet[];
}

// ---- SheetJS's text steps ------------------------------------------------------------------

const ENTITY = /&(?:quot|apos|gt|lt|amp|#x?([\da-fA-F]+));/gi;
const XML_CODE = /_x([\da-fA-F]{4})_/gi;
const NAMED_ENTITIES = new Map([
  ['&quot;', '"'],
  ['&apos;', "'"],
  ['&gt;', '>'],
  ['&lt;', '<'],
  ['&amp;', '&'],
]);

function rawUnescape(text: string): string {
  // Most values have nothing to unescape: no entity (&), no _xHHHH_ (_), no CDATA (<).
  if (!text.includes('&') && !text.includes('_') && !text.includes('<')) return text;
  const i = text.indexOf('<![CDATA[');
  if (i === -1) {
    return text
      .replace(
        ENTITY,
        (all: string, code: string | undefined) =>
          NAMED_ENTITIES.get(all) ||
          String.fromCharCode(Number.parseInt(code as string, all.includes('x') ? 16 : 10)) ||
          all,
      )
      .replace(XML_CODE, (_all, code: string) => String.fromCharCode(Number.parseInt(code, 16)));
  }
  const j = text.indexOf(']]>');
  return rawUnescape(text.slice(0, i)) + text.slice(i + 9, j) + rawUnescape(text.slice(j + 3));
}

/** SheetJS's unescapexml: entities, CDATA, `_xHHHH_`; with `xlsx`, CRLF as LF. */
export function unescapeXml(text: string, xlsx = false): string {
  const out = rawUnescape(text);
  return xlsx ? out.replace(/\r\n/g, '\n') : out;
}

/** SheetJS's utf8read: text read as bytes (latin1), decoded as UTF-8. */
const utf8 = (binary: string) => Buffer.from(binary, 'latin1').toString('utf8');

/** SheetJS's parsexmlbool. */
function xmlBool(value: unknown): boolean {
  return value === '1' || value === 'true';
}

const ATTRIBUTE = /\s([^"\s?>/]+)\s*=\s*((?:")([^"]*)(?:")|(?:')([^']*)(?:')|([^'">\s]+))/g;

/** SheetJS's parsexmltag: the tag's name (`root`) and attributes, prefixes and `_…` suffixes cut. */
export function readTag(tag: string): { root: string; attrs: Map<string, string> } {
  const attrs = new Map<string, string>();
  let eq = 0;
  for (; eq !== tag.length; ++eq) {
    const c = tag.charCodeAt(eq);
    if (c === 32 || c === 10 || c === 13) break;
  }
  const root = tag.slice(0, eq);
  if (eq === tag.length) return { root, attrs };
  for (const found of tag.match(ATTRIBUTE) ?? []) {
    const cc = found.slice(1);
    let c = 0;
    while (c !== cc.length && cc.charCodeAt(c) !== 61) ++c;
    let q = cc.slice(0, c).trim();
    while (cc.charCodeAt(c + 1) === 32) ++c;
    const open = cc.charCodeAt(c + 1);
    const quoted = open === 34 || open === 39 ? 1 : 0;
    const v = cc.slice(c + 1 + quoted, cc.length - quoted);
    let j = 0;
    while (j !== q.length && q.charCodeAt(j) !== 58) ++j;
    if (j === q.length) {
      if (q.indexOf('_') > 0) q = q.slice(0, q.indexOf('_'));
      attrs.set(q, v);
      attrs.set(q.toLowerCase(), v);
    } else {
      const k = (j === 5 && q.slice(0, 5) === 'xmlns' ? 'xmlns' : '') + q.slice(j + 1);
      if (attrs.get(k) && q.slice(j - 3, j) === 'ext') continue;
      attrs.set(k, v);
      attrs.set(k.toLowerCase(), v);
    }
  }
  return { root, attrs };
}

const elementPatterns = new Map<string, [RegExp, RegExp]>();

/** SheetJS's str_match_xml_ns: the first element `tag` (any prefix) and its content, or null. */
export function firstElement(text: string, tag: string): [string, string] | null {
  let res = elementPatterns.get(tag);
  if (!res) {
    res = [new RegExp(`<(?:\\w+:)?${tag}\\b[^<>]*>`, 'g'), new RegExp(`</(?:\\w+:)?${tag}>`, 'g')];
    elementPatterns.set(tag, res);
  }
  const [open, close] = res;
  open.lastIndex = 0;
  const m = open.exec(text);
  if (!m) return null;
  close.lastIndex = open.lastIndex;
  const e = close.exec(text);
  if (!e) return null;
  return [text.slice(m.index, close.lastIndex), text.slice(m.index + m[0].length, e.index)];
}

/** SheetJS's str_remove_xml_ns_g: the text without every element `tag`, or null if one is unclosed. */
function withoutElements(text: string, tag: string): string | null {
  const open = new RegExp(`<(?:\\w+:)?${tag}\\b[^<>]*>`, 'g');
  const close = new RegExp(`</(?:\\w+:)?${tag}>`, 'g');
  const out: string[] = [];
  let end = 0;
  for (let m = open.exec(text); m; m = open.exec(text)) {
    out.push(text.slice(end, m.index));
    close.lastIndex = open.lastIndex;
    if (!close.exec(text)) return null;
    end = close.lastIndex;
    open.lastIndex = close.lastIndex;
  }
  out.push(text.slice(end));
  return out.join('');
}

/** SheetJS's tagregex (the form its XML header matches). */
const ANY_TAG = /<[/?]?[a-zA-Z0-9:_-]+(?:\s+[^"\s?<>/]+\s*=\s*(?:"[^"]*"|'[^']*'|[^'"<>\s=]+))*\s*[/?]?>/gm;
const SI_PLAIN = /^\s*<(?:\w+:)?t[^>]*>/;
const SI_PLAIN_END = /<\/(?:\w+:)?t>/;
const SI_RUN = /<(?:\w+:)?r\b[^<>]*>/;
const SI_RUN_TEXT = /<(?:\w+:)?t\b[^<>]*>([^<]*)<\/(?:\w+:)?t>/g;

/** SheetJS's parse_si: the text of a shared or inline string (undefined where it finds none). */
export function stringItem(x: string): string | undefined {
  if (!x) return '';
  if (SI_PLAIN.test(x)) return unescapeXml(utf8(x.slice(x.indexOf('>') + 1).split(SI_PLAIN_END)[0] || ''), true);
  if (SI_RUN.test(x)) {
    const runs = withoutElements(x, 'rPh');
    if (runs === null) throw unsupported('an unclosed phonetic run');
    return unescapeXml(utf8((runs.match(SI_RUN_TEXT) ?? []).join('').replace(ANY_TAG, '')), true);
  }
  return undefined;
}

const SST_ITEM_OPEN = /<(?:\w+:)?(?:si|sstItem)>/g;
const SST_ITEM_CLOSE = /<\/(?:\w+:)?(?:si|sstItem)>/;

/** SheetJS's parse_sst_xml: the shared strings' texts in order. */
export function sharedStrings(xml: string): Array<string | undefined> {
  const sst = firstElement(xml, 'sst');
  if (!sst) return [];
  return sst[1]
    .replace(SST_ITEM_OPEN, '')
    .split(SST_ITEM_CLOSE)
    .map((item) => stringItem(item.trim()));
}

/** SheetJS's error cell values: the codes cells.ts names, and SheetJS's own code for an unknown one. */
const ERROR_CODES = new Map<string, number>([
  ...Object.entries(EXCEL_ERRORS).map(([code, text]) => [text, Number(code)] as const),
  ['#WTF?', 0xff],
]);

/** SheetJS's safe_decode_range: letters then digits, and after a ':' letters then digits again. */
function decodeRange(range: string) {
  let i = 0;
  /** The run of characters from `first` (value 1) to `last` at i, read in `base`, less one. */
  const run = (first: number, last: number, base: number) => {
    let idx = 0;
    for (; i < range.length; ++i) {
      const cc = range.charCodeAt(i) - first + 1;
      if (cc < 1 || cc > last - first + 1) break;
      idx = base * idx + cc - (base === 10 ? 1 : 0);
    }
    return idx - 1;
  };
  const start = { c: run(65, 90, 26), r: run(48, 57, 10) };
  if (i === range.length || range.charCodeAt(i) !== 58) return { s: start, e: { ...start } };
  ++i;
  const c = run(65, 90, 26);
  return { s: start, e: { c, r: run(48, 57, 10) } };
}

// ---- a sheet's rows ------------------------------------------------------------------------

const ROW_END = /<\/(?:\w+:)?row>/g;
const CELL_START = /<(?:\w+:)?c[ />]/;
const CELL_REF = /r=["']([^"']*)["']/;
/** A formula, or a cell SheetJS turns from an ISO date into a serial: left to SheetJS. */
const LEFT_TO_SHEETJS = /<(?:\w+:)?f[\s>/]|\bt\s*=\s*["']d["']/;
const SHEET_DATA_OPEN = /<(?:\w+:)?sheetData\b[^<>]*>/;
const SHEET_DATA_CLOSE = /<\/(?:\w+:)?sheetData>/g;
const DIMENSION = /<(?:\w*:)?dimension/;
const DIMENSION_REF = /"(\w*:\w*)"/;
/** Text before `<sheetData>` held at most (sheet views, columns): more is not a sheet of records. */
const MAX_PREFIX = 4 * 1024 * 1024;

interface RowState {
  /** SheetJS's tagr: the last row number read (1-based). */
  row: number;
  sheetRows: number;
  strings: ReadonlyArray<string | undefined>;
}

/** The cells of one `</row>`-delimited piece of sheet data, as SheetJS's parse_ws_xml_data reads them. */
function readRowPiece(piece: string, state: RowState): StreamedRow | undefined {
  const x = piece.trim();
  if (x.length === 0) return undefined;
  if (LEFT_TO_SHEETJS.test(x)) throw unsupported('a formula or a date cell');
  let start = 0;
  let end = 0;
  scan: for (; end < x.length; ++end) {
    switch (x[end]) {
      case '>':
        if (x[end - 1] !== '/') {
          ++end;
          break scan;
        }
        break;
      case '<':
        start = end;
        break;
    }
  }
  if (start >= end) throw unsupported('a row without its start');
  const rowTag = readTag(x.slice(start, end)).attrs.get('r');
  const row = rowTag !== undefined ? Number.parseInt(rowTag, 10) : state.row + 1;
  if (!(row > state.row)) throw unsupported('rows out of order');
  state.row = row;
  if (state.sheetRows < row) return undefined;
  let pieces = x.slice(end).split(CELL_START);
  let lead = 0;
  while (lead !== pieces.length && pieces[lead]!.trim().charAt(0) === '<') lead++;
  pieces = pieces.slice(lead);
  const cells: Array<SheetCell | undefined> = [];
  let any = false;
  let column = -1;
  for (const text of pieces) {
    let c = text.trim();
    if (c.length === 0) continue;
    const refFound = CELL_REF.exec(c);
    c = `<c ${c.slice(0, 1) === '<' ? '>' : ''}${c}`;
    if (refFound) {
      let idx = 0;
      const letters = refFound[1]!;
      for (let i = 0; i !== letters.length; ++i) {
        const cc = letters.charCodeAt(i) - 64;
        if (cc < 1 || cc > 26) break;
        idx = 26 * idx + cc;
      }
      column = idx - 1;
    } else ++column;
    let close = 0;
    while (close !== c.length && c.charCodeAt(close) !== 62) ++close;
    ++close;
    const { r: ref, t: type } = cellAttributes(c.slice(0, close));
    // SheetJS writes a reference for a cell without one and reads it back: the same row and column.
    const at = ref ? utils.decode_cell(ref) : { r: row - 1, c: column };
    const content = c.slice(close);
    const cell: SheetCell = { t: '' };
    const value = firstValue(content);
    if (value !== undefined && value !== '') cell.v = unescapeXml(value);
    if (type === undefined && cell.v === undefined) continue;
    cell.t = type || 'n';
    switch (cell.t) {
      case 'n':
        if (cell.v === undefined) continue;
        cell.v = Number.parseFloat(cell.v as string);
        break;
      case 's': {
        if (cell.v === undefined) continue;
        const index = Number.parseInt(cell.v as string, 10);
        if (!(index >= 0 && index < state.strings.length)) throw unsupported('a shared string that is not there');
        cell.v = state.strings[index];
        break;
      }
      case 'str':
        cell.t = 's';
        cell.v = cell.v !== undefined ? unescapeXml(utf8(cell.v as string), true) : '';
        break;
      case 'inlineStr': {
        const inline = firstElement(content, 'is');
        cell.t = 's';
        cell.v = inline !== null ? stringItem(inline[1]) : '';
        break;
      }
      case 'b':
        cell.v = xmlBool(cell.v);
        break;
      case 'e':
        if (typeof cell.v === 'string' && cell.v in Object.prototype)
          throw unsupported('an error value SheetJS looks up');
        cell.v = ERROR_CODES.get(cell.v as string);
        break;
    }
    if (at.r !== row - 1 || at.c < 0) throw unsupported('a cell outside its row');
    cells[at.c] = cell;
    any = true;
  }
  return any ? { index: row - 1, cells } : undefined;
}

/** A cell's start tag as Excel and SheetJS write it: readTag's answer without its general walk. */
const PLAIN_CELL_TAG = /^<c(?: r="([A-Z]{1,3}[0-9]{1,7})")?(?: s="[0-9]+")?(?: t="([a-zA-Z]+)")?\s*>$/;

/** The `r` and `t` readTag reads from a cell's start tag. */
function cellAttributes(tag: string): { r: string | undefined; t: string | undefined } {
  const plain = PLAIN_CELL_TAG.exec(tag);
  if (plain) return { r: plain[1], t: plain[2] };
  const { attrs } = readTag(tag);
  return { r: attrs.get('r'), t: attrs.get('t') };
}

/**
 * The content of a cell's first `<v>` element, as firstElement finds it: at once when the cell's
 * content starts with `<v>` and the next tag closes it (no text holds a '<'), else by its search.
 */
function firstValue(content: string): string | undefined {
  if (content.startsWith('<v>')) {
    const lt = content.indexOf('<', 3);
    if (lt >= 0 && content.startsWith('</v>', lt)) return content.slice(3, lt);
  }
  return firstElement(content, 'v')?.[1];
}

/**
 * The rows of one worksheet part, read as it unpacks (see the module comment); `onTruncated`
 * gets SheetJS's truncation of the sheet once its dimension is seen (false without one).
 */
async function* sheetRows(
  bytes: Uint8Array,
  part: ZipEntry,
  state: RowState,
  onTruncated: (truncated: boolean) => void,
): AsyncGenerator<StreamedRow> {
  let phase: 'prefix' | 'data' | 'after' | 'empty' = 'prefix';
  let text = '';
  let dimensionSeen = false;
  /** SheetJS reads the first `<dimension` anywhere in the part, its reference within 50 characters. */
  const dimension = (from: string): boolean => {
    if (dimensionSeen) return true;
    const at = DIMENSION.exec(from);
    if (!at) return false;
    if (from.length < at.index + 50) return false; // wait for the rest of its window
    dimensionSeen = true;
    if (phase !== 'prefix' || at.index === 0) throw unsupported('a dimension after the data');
    const ref = DIMENSION_REF.exec(from.slice(at.index, at.index + 50));
    const d = ref ? decodeRange(ref[1]!) : undefined;
    const valid = d !== undefined && d.s.r <= d.e.r && d.s.c <= d.e.c && d.s.r >= 0 && d.s.c >= 0;
    onTruncated(valid && state.sheetRows <= d.e.r);
    return true;
  };
  /** What follows the data, kept to its last characters: SheetJS reads nothing there but a dimension. */
  const afterData = () => {
    SHEET_DATA_CLOSE.lastIndex = 0;
    if (phase === 'empty' && SHEET_DATA_CLOSE.test(text)) throw unsupported('a sheetData element closed twice');
    if (!dimensionSeen && DIMENSION.test(text)) throw unsupported('a dimension after the data');
    text = text.slice(-64);
  };
  for await (const chunk of partChunks(bytes, part)) {
    if (phase === 'prefix' && text === '' && isUtf16(chunk)) throw unsupported('a UTF-16 part');
    // Where a tag still to be found may start: at the last '<' of what was kept (a tag cut at the
    // chunk's end), or in the new chunk. Searching only from there keeps a row of any length linear.
    const lastTag = text.lastIndexOf('<');
    let scanFrom = lastTag >= 0 ? lastTag : text.length;
    text += chunk.toString('latin1');
    if (phase === 'prefix') {
      const open = SHEET_DATA_OPEN.exec(text);
      if (!open) {
        if (text.length > MAX_PREFIX) throw unsupported('a long sheet header');
        continue;
      }
      if (!dimension(text) && DIMENSION.test(text.slice(0, open.index))) continue; // its window is cut
      // <sheetData/>: SheetJS looks for its end tag, finds none and reads no rows (as SheetJS writes an empty sheet).
      phase = open[0].endsWith('/>') ? 'empty' : 'data';
      text = text.slice(open.index + open[0].length);
      scanFrom = 0;
    }
    if (phase !== 'data') {
      afterData();
      continue;
    }
    SHEET_DATA_CLOSE.lastIndex = scanFrom;
    const close = SHEET_DATA_CLOSE.exec(text);
    const upTo = close ? close.index : lastRowEnd(text, scanFrom);
    if (upTo <= 0 && !close) continue;
    const data = text.slice(0, upTo);
    text = close ? text.slice(close.index + close[0].length) : text.slice(upTo);
    const pieces = data.split(ROW_END);
    if (!close) pieces.pop(); // the text after the last </row> comes with the next chunk
    for (const piece of pieces) {
      const row = readRowPiece(piece, state);
      if (row) yield row;
    }
    if (close) {
      phase = 'after';
      afterData();
    }
  }
  if (phase === 'prefix') throw unsupported('no sheetData element');
  if (phase === 'data') throw unsupported('an unclosed sheetData element');
  if (!dimensionSeen) onTruncated(false);
}

/** Where the last `</row>` of `text` starting at `from` or later ends (0: none). */
function lastRowEnd(text: string, from: number): number {
  let end = 0;
  ROW_END.lastIndex = from;
  for (let m = ROW_END.exec(text); m; m = ROW_END.exec(text)) end = ROW_END.lastIndex;
  return end;
}

// ---- the workbook --------------------------------------------------------------------------

const CONTENT_TYPES_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const MAIN_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';
const STRINGS_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml';
const WORKSHEET_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet';
/** Parts that make SheetJS read the file as something else than an .xlsx. */
const OTHER_FORMATS = ['meta-inf/manifest.xml', 'objectdata.xml', 'index/document.iwa'];
/** Small parts read whole (content types, the workbook, its relationships): at most this long. */
const MAX_SMALL_PART = 8 * 1024 * 1024;

/**
 * A part's text, read as bytes (as SheetJS reads it). Decoded a chunk at a time into the thread's
 * heap, which its memory budget bounds, rather than gathered in buffers outside it first.
 */
async function partText(bytes: Uint8Array, part: ZipEntry, max: number): Promise<string> {
  if (part.uncompressedSize > max) throw unsupported(`a part over ${max} bytes`);
  let text = '';
  for await (const chunk of partChunks(bytes, part)) {
    if (text === '' && isUtf16(chunk)) throw unsupported('a UTF-16 part');
    text += chunk.toString('latin1');
  }
  return text;
}

const tagsOf = (xml: string) => xml.match(ANY_TAG) ?? [];

/** Whether a part starts with a UTF-16 byte-order mark (SheetJS decodes those; left to it). */
const isUtf16 = (b: Uint8Array) => (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);

/**
 * The workbook's sheets (names, parts, in the workbook's order) and its date system, from the
 * archive's directory (`entries`, file-check.ts's readZipDirectory), or StreamUnsupported.
 * `sheetRows` is SheetJS's: rows past it are skipped.
 */
export async function streamWorkbook(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
  sheetRowsLimit: number,
): Promise<StreamedWorkbook> {
  const byName = new Map<string, ZipEntry>();
  for (const entry of entries) {
    const key = entry.name.toLowerCase().replace(/\\/g, '/');
    if (byName.has(key)) throw unsupported('two parts of one name');
    byName.set(key, entry);
  }
  if (OTHER_FORMATS.some((name) => byName.has(name))) throw unsupported('another kind of workbook');
  const part = (name: string) => byName.get(name.toLowerCase());
  const types = part('[Content_Types].xml');
  if (!types) throw unsupported('no content types');

  const workbooks: string[] = [];
  const strings: string[] = [];
  let namespace: string | undefined;
  for (const tag of tagsOf(await partText(bytes, types, MAX_SMALL_PART))) {
    const { root, attrs } = readTag(tag);
    const name = root.replace(/<\w*:/, '<');
    if (name === '<Types') namespace = attrs.get('xmlns');
    else if (name === '<Override') {
      const type = attrs.get('ContentType') ?? '';
      if (type === MAIN_TYPE) workbooks.push(attrs.get('PartName') ?? '');
      else if (type === STRINGS_TYPE) strings.push(attrs.get('PartName') ?? '');
      else if (/spreadsheetml\.(?:sheet\.binary|template|sheet\.macroEnabled|addin)|main\+xml|\.main$/.test(type)) {
        throw unsupported('another kind of workbook');
      }
    }
  }
  if (namespace !== CONTENT_TYPES_NS) throw unsupported('content types of another namespace');
  const workbookName = (workbooks[0] ?? 'xl/workbook.xml').replace(/^\//, '');
  if (workbookName !== 'xl/workbook.xml') throw unsupported('a workbook elsewhere');
  const workbookPart = part(workbookName);
  if (!workbookPart) throw unsupported('no workbook');

  let date1904 = false;
  const sheetsListed: Array<{ name: string; id: string | undefined }> = [];
  const workbookXml = await partText(bytes, workbookPart, MAX_SMALL_PART);
  for (const tag of tagsOf(workbookXml)) {
    const { root, attrs } = readTag(tag);
    if (/^<\/?\w+:/.test(root)) throw unsupported('a workbook with a namespace prefix');
    if (root === '<workbookPr' || root === '<workbookPr/>') {
      if (attrs.get('date1904') != null) date1904 = xmlBool(attrs.get('date1904'));
    } else if (root === '<sheet') {
      const rawName = attrs.get('name');
      if (rawName === undefined) throw unsupported('a sheet without a name');
      sheetsListed.push({ name: unescapeXml(utf8(rawName)), id: attrs.get('id') || attrs.get('strRelID') });
    }
  }
  const names = new Set(sheetsListed.map((s) => s.name));
  if (names.size !== sheetsListed.length || names.has('__proto__')) throw unsupported('sheet names SheetJS merges');

  const relsPart = part('xl/_rels/workbook.xml.rels');
  if (!relsPart) throw unsupported('no workbook relationships');
  const rels = new Map<string, { target: string; type: string | undefined }>();
  for (const tag of tagsOf(await partText(bytes, relsPart, MAX_SMALL_PART))) {
    const { root, attrs } = readTag(tag);
    if (root !== '<Relationship') continue;
    const id = attrs.get('Id');
    if (id !== undefined) rels.set(id, { target: unescapeXml(attrs.get('Target') ?? ''), type: attrs.get('Type') });
  }

  let strs: Array<string | undefined> = [];
  const stringsName = strings[0]?.replace(/^\//, '');
  if (stringsName) {
    const stringsPart = part(stringsName);
    if (!stringsPart) throw unsupported('shared strings that are not there');
    strs = sharedStrings(await partText(bytes, stringsPart, Number.MAX_SAFE_INTEGER));
  }

  const sheets = sheetsListed.map(({ name, id }): StreamedSheet => {
    const rel = id === undefined ? undefined : rels.get(id);
    if (!rel || rel.type !== WORKSHEET_REL) throw unsupported('a sheet that is not a worksheet');
    const sheetPart = part(`xl/${rel.target.replace(/[/]?xl\//, '')}`);
    if (!sheetPart) throw unsupported('a sheet part elsewhere');
    let truncated: boolean | undefined;
    return {
      name,
      truncated: () => {
        if (truncated === undefined) throw new Error('truncated() before the rows were read');
        return truncated;
      },
      rows: () =>
        sheetRows(bytes, sheetPart, { row: 0, sheetRows: sheetRowsLimit, strings: strs }, (t) => {
          truncated = t;
        }),
    };
  });
  return { date1904, sheets };
}
