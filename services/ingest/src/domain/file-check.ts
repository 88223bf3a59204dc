/**
 * The checks an uploaded file passes before it is stored and queued (issue 17 "Limits against
 * hostile files"): a name SPEC §5 accepts, a size within the limit, content that is what the name
 * says, and — for an .xlsx — a ZIP whose parts unpack to a bounded size.
 *
 * The ZIP is judged from its own directory first, without unpacking anything: the sizes it declares,
 * the number of parts. Declared sizes are the sender's word, though, and SheetJS sizes its output by
 * them (a local header saying 0, as Apache POI and Go write with a data descriptor, lets its
 * inflater grow without bound). So each part that passes is then inflated once with its declared
 * size as a hard cap on the output, and must come out exactly that size: a part that lies about its
 * size is refused after at most that many bytes, and what SheetJS later unpacks is never more than
 * the declared total, which the limit bounds. The parts are unpacked as streams by zlib's threads,
 * a chunk at a time, so the service's event loop and memory are not held by a large file (issue 37).
 *
 * Bytes do not bound the cells, though: a sheet's `<dimension>` (rows × columns) passing `maxCells`
 * is refused here too, from the sheet's first bytes; the worker counts the cells themselves before
 * parsing (cell-count.ts), as a dimension may be missing or false.
 */
import {
  BATCH_UPLOAD_MESSAGES,
  ERROR_CODES,
  type ErrorCode,
  type WorkbookKind,
  workbookKindOfName,
} from '@nrad/contracts';
import { CFB } from 'xlsx';
import { dimensionReader, partChunks, type SheetSpan } from './cell-count.ts';

/** The two kinds of workbook SPEC §5 accepts, named by their file extension. */

/** The limits an upload is checked against (the service's configuration). */
export interface UploadLimits {
  /** Size of the file as uploaded. */
  maxBytes: number;
  /** Sum of the sizes of an .xlsx's parts once unpacked. */
  maxUncompressedBytes: number;
  /** Cells (rows × columns) the sheets of an .xlsx may declare in all. */
  maxCells: number;
}

/** More parts than any workbook of records has; a directory this long is not a spreadsheet. */
export const MAX_ZIP_ENTRIES = 10_000;

const STATUS_OF_CODE: Partial<Record<ErrorCode, 400 | 413 | 415>> = {
  [ERROR_CODES.validation]: 400,
  [ERROR_CODES.payloadTooLarge]: 413,
  [ERROR_CODES.unsupportedMediaType]: 415,
};

/**
 * An upload refused before it is stored: `message` is for the person who sent the file, `code` is
 * one of the contracts' error codes, and `status` the HTTP status it is answered with.
 */
export class UploadRefused extends Error {
  override name = 'UploadRefused';
  readonly status: 400 | 413 | 415;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.status = STATUS_OF_CODE[code] ?? 400;
  }
}

/** The texts of the refusals; the first two are SPEC §5's own. */
export type { WorkbookKind };

export const UPLOAD_MESSAGES = {
  ...BATCH_UPLOAD_MESSAGES,
  empty: 'The file is empty.',
  tooLarge: (maxBytes: number) => `The file is too large: the limit is ${megabytes(maxBytes)}.`,
  notKind: (kind: WorkbookKind) => `The file is named .${kind} but its content is not an Excel .${kind} workbook.`,
  xlsNamedXlsx: 'The file is named .xlsx but its content is an older Excel .xls workbook; rename it to .xls.',
  xlsxNamedXls: 'The file is named .xls but its content is an Excel .xlsx workbook; rename it to .xlsx.',
  damaged: 'The file is damaged or not a valid Excel workbook.',
  passwordProtected: 'The workbook is password-protected: save it without a password and upload it again.',
  unpacksTooLarge: (maxBytes: number) =>
    `The workbook is too large once unpacked (more than ${megabytes(maxBytes)}); split it into smaller files.`,
  tooManyParts: `The file is not a valid Excel workbook: it holds more than ${MAX_ZIP_ENTRIES.toLocaleString('en-US')} parts.`,
  tooManyCells: (maxCells: number, span?: SheetSpan) =>
    `The workbook has more than ${count(maxCells)} cells${span ? ` (a sheet spans ${count(span.rows)} rows × ${count(span.columns)} columns)` : ''}; delete the rows and columns that are not records or split it into smaller files.`,
} as const;

const count = (n: number) => n.toLocaleString('en-US');

/** 26214400 → "25 MB"; 1572864 → "1.5 MB". */
export function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : Number(mb.toFixed(1))} MB`;
}

const refuse = (message: string, code: ErrorCode = ERROR_CODES.validation) => new UploadRefused(code, message);

/**
 * The checks of the file's name and size alone (no file, a name not ending in .xlsx/.xls, an empty
 * or too large file): its kind, or `UploadRefused`.
 */
export function checkUploadName(name: string | undefined, bytes: Uint8Array, limits: UploadLimits): WorkbookKind {
  if (name === undefined || name.trim() === '') throw refuse(UPLOAD_MESSAGES.noFile);
  const kind = workbookKindOfName(name);
  if (!kind) throw refuse(UPLOAD_MESSAGES.invalidType, ERROR_CODES.unsupportedMediaType);
  if (bytes.length === 0) throw refuse(UPLOAD_MESSAGES.empty);
  if (bytes.length > limits.maxBytes) {
    throw refuse(UPLOAD_MESSAGES.tooLarge(limits.maxBytes), ERROR_CODES.payloadTooLarge);
  }
  return kind;
}

/**
 * Checks an uploaded file and tells which kind of workbook it is, or throws `UploadRefused`
 * (checked in this order): no file, a name not ending in .xlsx/.xls, an empty or too large file,
 * content that is not what the name says, a password-protected workbook, an .xlsx that is damaged,
 * unpacks beyond `maxUncompressedBytes` or has a sheet whose dimension passes `maxCells`.
 */
export async function checkUpload(
  name: string | undefined,
  bytes: Uint8Array,
  limits: UploadLimits,
): Promise<WorkbookKind> {
  const kind = checkUploadName(name, bytes, limits);
  if (kind === 'xlsx') await checkXlsx(bytes, limits);
  else checkXls(bytes);
  return kind;
}

const OLE2_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP_LOCAL_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

const startsWith = (bytes: Uint8Array, signature: readonly number[]) =>
  bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);

/** Whether the bytes start as an OLE2 compound file (.xls, or an encrypted Office file). */
export const isOle2 = (bytes: Uint8Array) => startsWith(bytes, OLE2_SIGNATURE);
/** Whether the bytes start as a ZIP archive (.xlsx). */
export const isZip = (bytes: Uint8Array) => startsWith(bytes, ZIP_LOCAL_SIGNATURE);

async function checkXlsx(bytes: Uint8Array, limits: UploadLimits): Promise<void> {
  if (isOle2(bytes)) {
    // Excel saves a workbook with a password as an OLE2 file holding the encrypted package.
    const ole = readOle2(bytes);
    if (ole.encrypted) throw refuse(UPLOAD_MESSAGES.passwordProtected);
    if (ole.workbook) throw refuse(UPLOAD_MESSAGES.xlsNamedXlsx, ERROR_CODES.unsupportedMediaType);
    throw refuse(UPLOAD_MESSAGES.notKind('xlsx'), ERROR_CODES.unsupportedMediaType);
  }
  if (!isZip(bytes)) throw refuse(UPLOAD_MESSAGES.notKind('xlsx'), ERROR_CODES.unsupportedMediaType);
  const entries = readZipDirectory(bytes, limits.maxUncompressedBytes);
  const names = new Set(entries.map((e) => e.name.toLowerCase()));
  if (!names.has('[content_types].xml') || !names.has('xl/workbook.xml')) {
    throw refuse(UPLOAD_MESSAGES.notKind('xlsx'), ERROR_CODES.unsupportedMediaType);
  }
  // The sheets first: one whose dimension passes the cells' bound is refused from its first bytes.
  const sheets = entries.filter((e) => SHEET_PART.test(e.name));
  const declared = { cells: 0 };
  for (const entry of sheets) await verifyUnpackedSize(bytes, entry, { declared, maxCells: limits.maxCells });
  for (const entry of entries) if (!SHEET_PART.test(entry.name)) await verifyUnpackedSize(bytes, entry);
}

/** Where Excel and every writer we know put a workbook's sheets (the worker counts every part). */
const SHEET_PART = /^xl\/worksheets\/[^/]+\.xml$/i;

function checkXls(bytes: Uint8Array): void {
  if (isZip(bytes)) throw refuse(UPLOAD_MESSAGES.xlsxNamedXls, ERROR_CODES.unsupportedMediaType);
  if (!isOle2(bytes)) throw refuse(UPLOAD_MESSAGES.notKind('xls'), ERROR_CODES.unsupportedMediaType);
  const ole = readOle2(bytes);
  if (ole.encrypted) throw refuse(UPLOAD_MESSAGES.passwordProtected);
  if (!ole.workbook) throw refuse(UPLOAD_MESSAGES.notKind('xls'), ERROR_CODES.unsupportedMediaType);
}

interface CfbEntry {
  name: string;
  content?: Uint8Array | number[];
}
interface CfbContainer {
  FileIndex: CfbEntry[];
}

/** What matters of an OLE2 compound file: an encrypted Office package, or an .xls workbook stream. */
export interface Ole2Contents {
  /** An encrypted package (an .xlsx saved with a password) or an encrypted .xls workbook stream. */
  encrypted: boolean;
  /** An .xls workbook stream (BIFF8 "Workbook" or BIFF5 "Book"). */
  workbook: boolean;
}

/** What an OLE2 compound file holds, or undefined when it cannot be read as one. */
export function ole2Contents(bytes: Uint8Array): Ole2Contents | undefined {
  let container: CfbContainer;
  try {
    container = CFB.read(bytes, { type: 'array' }) as CfbContainer;
  } catch {
    return undefined;
  }
  const streams = new Map<string, CfbEntry>();
  for (const entry of container.FileIndex) streams.set(entry.name.toLowerCase(), entry);
  if (streams.has('encryptioninfo') || streams.has('encryptedpackage')) return { encrypted: true, workbook: false };
  const stream = streams.get('workbook') ?? streams.get('book');
  if (!stream) return { encrypted: false, workbook: false };
  return { encrypted: biffHasFilePass(stream.content), workbook: true };
}

function readOle2(bytes: Uint8Array): Ole2Contents {
  const contents = ole2Contents(bytes);
  if (!contents) throw refuse(UPLOAD_MESSAGES.damaged);
  return contents;
}

const BIFF_FILEPASS = 0x002f;
const BIFF_EOF = 0x000a;
const BIFF_BOUNDSHEET = 0x0085;

/**
 * Whether an .xls workbook stream is encrypted: a FILEPASS record in the globals before the first
 * sheet entry (where Excel writes it, right after BOF).
 */
function biffHasFilePass(content: Uint8Array | number[] | undefined): boolean {
  if (!content) return false;
  let at = 0;
  for (let records = 0; records < 256 && at + 4 <= content.length; records++) {
    const type = (content[at] ?? 0) | ((content[at + 1] ?? 0) << 8);
    const size = (content[at + 2] ?? 0) | ((content[at + 3] ?? 0) << 8);
    if (type === BIFF_FILEPASS) return true;
    if (type === BIFF_EOF || type === BIFF_BOUNDSHEET) return false;
    at += 4 + size;
  }
  return false;
}

/** One part of a ZIP archive as its central directory and local header describe it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  compressedSize: number;
  uncompressedSize: number;
  /** Where the part's data starts (after its local header). */
  dataOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const ZIP64_MARK_32 = 0xffffffff;
const ZIP64_MARK_16 = 0xffff;
const ZIP64_EXTRA = 0x0001;
/** General-purpose flags: encrypted (bit 0), strong encryption (bit 6), masked header (bit 13). */
const ENCRYPTION_FLAGS = 0x2041;
/** General-purpose flag bit 3: sizes follow the data in a data descriptor. */
const DATA_DESCRIPTOR_FLAG = 0x0008;
const UTF8 = new TextDecoder();

/**
 * Reads a ZIP archive's directory without unpacking anything, refusing it when it is damaged, uses
 * ZIP64 (no workbook within an upload limit needs it, and SheetJS reads its sizes differently from
 * the format), is encrypted, has more than MAX_ZIP_ENTRIES parts, or declares more than
 * `maxUncompressedBytes` in all.
 */
export function readZipDirectory(bytes: Uint8Array, maxUncompressedBytes: number): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) throw refuse(UPLOAD_MESSAGES.damaged);
  const disk = view.getUint16(eocd + 4, true);
  const cdDisk = view.getUint16(eocd + 6, true);
  const countHere = view.getUint16(eocd + 8, true);
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === ZIP64_MARK_16 || cdSize === ZIP64_MARK_32 || cdOffset === ZIP64_MARK_32) {
    throw refuse(UPLOAD_MESSAGES.damaged);
  }
  if (disk !== 0 || cdDisk !== 0 || countHere !== count) throw refuse(UPLOAD_MESSAGES.damaged);
  if (count > MAX_ZIP_ENTRIES) throw refuse(UPLOAD_MESSAGES.tooManyParts);
  if (count === 0 || cdOffset + cdSize > eocd) throw refuse(UPLOAD_MESSAGES.damaged);

  const entries: ZipEntry[] = [];
  let total = 0;
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    const { entry, next } = readCentralEntry(view, at, cdOffset + cdSize);
    total += entry.uncompressedSize;
    if (total > maxUncompressedBytes) {
      throw refuse(UPLOAD_MESSAGES.unpacksTooLarge(maxUncompressedBytes), ERROR_CODES.payloadTooLarge);
    }
    entries.push(entry);
    at = next;
  }
  return entries;
}

/** The offset of the End of Central Directory record, or -1: it ends the file, after its comment. */
function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - EOCD_SIZE;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let at = last; at >= first; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE) continue;
    const commentLength = view.getUint16(at + 20, true);
    if (at + EOCD_SIZE + commentLength <= view.byteLength) return at;
  }
  return -1;
}

/** One central directory entry, checked against its local header. */
function readCentralEntry(view: DataView, at: number, cdEnd: number): { entry: ZipEntry; next: number } {
  const damaged = () => refuse(UPLOAD_MESSAGES.damaged);
  if (at + 46 > cdEnd || view.getUint32(at, true) !== CENTRAL_SIGNATURE) throw damaged();
  const flags = view.getUint16(at + 8, true);
  const method = view.getUint16(at + 10, true);
  const compressedSize = view.getUint32(at + 20, true);
  const uncompressedSize = view.getUint32(at + 24, true);
  const nameLength = view.getUint16(at + 28, true);
  const extraLength = view.getUint16(at + 30, true);
  const commentLength = view.getUint16(at + 32, true);
  const localOffset = view.getUint32(at + 42, true);
  const next = at + 46 + nameLength + extraLength + commentLength;
  if (next > cdEnd) throw damaged();
  if (flags & ENCRYPTION_FLAGS) throw refuse(UPLOAD_MESSAGES.passwordProtected);
  if (method !== 0 && method !== 8) throw damaged();
  if (compressedSize === ZIP64_MARK_32 || uncompressedSize === ZIP64_MARK_32 || localOffset === ZIP64_MARK_32) {
    throw damaged();
  }
  if (hasZip64Extra(view, at + 46 + nameLength, extraLength)) throw damaged();
  if (method === 0 && compressedSize !== uncompressedSize) throw damaged();
  const name = UTF8.decode(new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength));
  const dataOffset = checkLocalHeader(view, localOffset, { method, compressedSize, uncompressedSize });
  if (dataOffset + compressedSize > view.byteLength) throw damaged();
  return { entry: { name, method, compressedSize, uncompressedSize, dataOffset }, next };
}

/**
 * Checks that a part's local header agrees with its central directory entry (SheetJS unpacks by
 * the local header) and returns where its data starts. With a data descriptor the local sizes may be
 * 0; the unpacking check below then holds the part to the central directory's size.
 */
function checkLocalHeader(
  view: DataView,
  at: number,
  central: { method: number; compressedSize: number; uncompressedSize: number },
): number {
  const damaged = () => refuse(UPLOAD_MESSAGES.damaged);
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL_SIGNATURE) throw damaged();
  const flags = view.getUint16(at + 6, true);
  const method = view.getUint16(at + 8, true);
  const compressedSize = view.getUint32(at + 18, true);
  const uncompressedSize = view.getUint32(at + 22, true);
  const nameLength = view.getUint16(at + 26, true);
  const extraLength = view.getUint16(at + 28, true);
  if (flags & ENCRYPTION_FLAGS) throw refuse(UPLOAD_MESSAGES.passwordProtected);
  if (method !== central.method) throw damaged();
  if (hasZip64Extra(view, at + 30 + nameLength, extraLength)) throw damaged();
  const deferred = (flags & DATA_DESCRIPTOR_FLAG) !== 0 && compressedSize === 0 && uncompressedSize === 0;
  if (!deferred && (compressedSize !== central.compressedSize || uncompressedSize !== central.uncompressedSize)) {
    throw damaged();
  }
  return at + 30 + nameLength + extraLength;
}

/** Whether an extra-field block holds a ZIP64 field. */
function hasZip64Extra(view: DataView, at: number, length: number): boolean {
  const end = Math.min(at + length, view.byteLength);
  for (let p = at; p + 4 <= end; ) {
    if (view.getUint16(p, true) === ZIP64_EXTRA) return true;
    p += 4 + view.getUint16(p + 2, true);
  }
  return false;
}

/**
 * Unpacks one part as a stream, its declared size the cap on the output, refusing the file when
 * the part is cut short or holds more (or less) than it declares; memory is a chunk at a time.
 * For a sheet (`cells` given), the span its `<dimension>` declares is added to `cells.declared`
 * and the file refused once that passes `cells.maxCells`, before the rest of the part is unpacked.
 * A stored part's size is its compressed size, already in bounds: only its dimension is read.
 */
async function verifyUnpackedSize(
  bytes: Uint8Array,
  entry: ZipEntry,
  cells?: { declared: { cells: number }; maxCells: number },
): Promise<void> {
  if (entry.method === 0 && !cells) return;
  const dimension = dimensionReader();
  let unpacked = 0;
  try {
    for await (const chunk of partChunks(bytes, entry)) {
      unpacked += chunk.length;
      if (unpacked > entry.uncompressedSize) throw refuse(UPLOAD_MESSAGES.damaged);
      const span = cells && dimension.take(chunk);
      if (span && cells) {
        cells.declared.cells += span.rows * span.columns;
        if (cells.declared.cells > cells.maxCells) {
          throw refuse(UPLOAD_MESSAGES.tooManyCells(cells.maxCells, span), ERROR_CODES.payloadTooLarge);
        }
      }
      if (entry.method === 0) return;
    }
  } catch (err) {
    if (err instanceof UploadRefused) throw err;
    throw refuse(UPLOAD_MESSAGES.damaged);
  }
  if (unpacked !== entry.uncompressedSize) throw refuse(UPLOAD_MESSAGES.damaged);
}
