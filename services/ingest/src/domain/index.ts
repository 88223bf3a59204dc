/** The pure domain of batch upload: checking an uploaded file, reading its rows, the template. */

export { type CellCount, countCells, declaredSpan, type SheetSpan, spanOfRef } from './cell-count.ts';
export {
  amountOf,
  booleanOf,
  CELL_MESSAGES,
  type CellResult,
  cellText,
  dateOf,
  numberText,
} from './cells.ts';
export {
  ALLOWED_VALUES_SHEET,
  type ColumnKind,
  HEADER_ALIASES,
  RECORDS_SHEET,
  type RecordField,
  TEMPLATE_COLUMNS,
  type TemplateColumn,
} from './columns.ts';
export {
  checkUpload,
  checkUploadName,
  isOle2,
  isZip,
  MAX_ZIP_ENTRIES,
  megabytes,
  readZipDirectory,
  UPLOAD_MESSAGES,
  type UploadLimits,
  UploadRefused,
  type WorkbookKind,
  type ZipEntry,
} from './file-check.ts';
export { buildTemplate, TEMPLATE_FILE_NAME, type TemplateOptions } from './template.ts';
export { markRepeatedNumbers, readUploadRows, type UploadReadLimits, type UploadRows } from './upload-rows.ts';
export {
  columnOfHeader,
  normalizeHeader,
  type ReadLimits,
  type RecordBody,
  type RowError,
  readRows,
  type SheetRow,
  type SheetTable,
  WORKBOOK_MESSAGES,
  WorkbookRefused,
} from './workbook.ts';
