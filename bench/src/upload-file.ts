/**
 * The .xlsx files the benchmarks upload through the batch upload: the template's columns (the
 * ingest service's own TEMPLATE_COLUMNS) and one row per generated record body.
 */
import { TEMPLATE_COLUMNS } from '@nrad/ingest-service/template';
import * as XLSX from 'xlsx';

/** A row of the upload template from a record body (dates and amounts as text, Yes/No). */
export function rowOf(body: Record<string, unknown>): unknown[] {
  return TEMPLATE_COLUMNS.map(({ field }) => {
    const v = body[field];
    if (typeof v === 'boolean') return v ? 'Yes' : 'No';
    return v ?? '';
  });
}

/** An .xlsx file of the template's header and these record bodies, one sheet "Records". */
export function uploadFile(bodies: Iterable<Record<string, unknown>>): Uint8Array {
  const rows: unknown[][] = [TEMPLATE_COLUMNS.map((c) => c.title)];
  for (const body of bodies) rows.push(rowOf(body));
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Records');
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx', compression: true }) as ArrayBuffer);
}
