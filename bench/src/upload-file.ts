/**
 * The .xlsx files the benchmarks upload through the batch upload: the template's columns (the
 * ingest service's own TEMPLATE_COLUMNS) and one row per generated record body.
 */
import { performance } from 'node:perf_hooks';
import type { IngestJob } from '@nrad/contracts';
import { TEMPLATE_COLUMNS } from '@nrad/ingest-service/template';
import * as XLSX from 'xlsx';
import { type AgencyUser, sleep } from './harness.ts';

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

/**
 * Uploads `file` as `user` through the public batch upload (`?async=1`) and reads its job every
 * half second until it ends: the job. The ingest service busy reading several files may answer a
 * poll 503 for a moment (`onBusy` hears of it); it is asked again. `onAnswer` hears how long the
 * upload and each read of its job took and their status, as they come.
 */
export async function uploadAndWait(
  user: AgencyUser,
  file: Uint8Array,
  options: {
    name: string;
    waitMs: number;
    onBusy?: () => void;
    onAnswer?: (request: 'upload' | 'job', answer: { ms: number; status: number }) => void;
  },
): Promise<IngestJob> {
  const form = new FormData();
  form.append('file', new Blob([file]), options.name);
  const accepted = await user.http.call('POST', '/api/records/batch-upload?async=1', form);
  options.onAnswer?.('upload', accepted);
  if (accepted.status !== 202)
    throw new Error(`the upload answered ${accepted.status}: ${accepted.text.slice(0, 300)}`);
  const { jobId } = JSON.parse(accepted.text) as { jobId: string };
  const deadline = performance.now() + options.waitMs;
  for (;;) {
    const res = await user.http.call('GET', `/api/ingest/jobs/${jobId}`);
    options.onAnswer?.('job', res);
    if (res.status === 503) options.onBusy?.();
    else if (res.status !== 200) throw new Error(`GET /api/ingest/jobs/${jobId} answered ${res.status}`);
    else {
      const job = JSON.parse(res.text) as IngestJob;
      if (job.state === 'completed') return job;
      if (job.state === 'failed') throw new Error(`${user.agency}'s upload failed`);
    }
    if (performance.now() > deadline) throw new Error(`${user.agency}'s upload did not end in time`);
    await sleep(500);
  }
}
