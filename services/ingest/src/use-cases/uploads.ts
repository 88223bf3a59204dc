import { randomUUID } from 'node:crypto';
import {
  type BatchRowError,
  type BatchUploadResult,
  fieldErrors,
  INCIDENT_NUMBER_TAKEN,
  type IngestJob,
  incidentKey,
  RecordFieldsSchema,
  type RecordImportOutcome,
  type RecordImportPlan,
  type RecordImportPlanRequest,
  RecordInputSchema,
  type UserIdentity,
  uploadStoppedMessage,
} from '@nrad/contracts';
import { type AuditActor, type AuditTrail, auditEvents, type Logger, notFound, scopeOf } from '@nrad/service-kit';
import type { IngestConfig } from '../config.ts';
import type { RecordsApi } from '../data/records-client.ts';
import { OUTSIDE_SCOPE, type UploadStore } from '../data/uploads.ts';
import { checkUpload, readRows, type SheetRow, WorkbookRefused } from '../domain/index.ts';
import type { IngestJobData } from '../jobs/queue.ts';

export interface IngestDeps {
  config: IngestConfig;
  store: UploadStore;
  records: RecordsApi;
  enqueue(data: IngestJobData): Promise<unknown>;
  logger: Logger;
  /** The audit trail (issue 21): an upload accepted (by the route) and completed (by the worker). */
  audit: Pick<AuditTrail, 'record' | 'publish'>;
}

/** The service's name in its audit events. */
export const AUDIT_SERVICE = 'ingest';
/** The id of an upload's completion events: the same on a retried job, so the trail keeps them once. */
export const completionAuditId = (uploadId: string) => `${uploadId}-completed`;

export const JOB_NOT_FOUND = 'Upload job not found';
/** Errors listed in a result at most; the rest are counted in its message. */
export const MAX_LISTED_ERRORS = 10_000;

const MB = 1024 * 1024;

/**
 * Checks an uploaded file (name, type, size, what it really is; a zip bomb), stores it, records it
 * in the audit trail (`upload`, accepted) and queues its job with the request's id and client
 * address (the worker's completion event names them); resolves the upload id. Throws
 * `UploadRefused` (a 4xx) before anything is stored. An upload whose acceptance cannot be recorded
 * is not queued: it is marked failed and the request fails.
 */
export async function acceptUpload(
  deps: IngestDeps,
  user: UserIdentity,
  file: { name: string | undefined; bytes: Uint8Array } | undefined,
  actor: AuditActor,
): Promise<string> {
  const name = file?.name;
  const bytes = file?.bytes ?? new Uint8Array();
  const kind = checkUpload(name, bytes, {
    maxBytes: deps.config.INGEST_MAX_FILE_MB * MB,
    maxUncompressedBytes: deps.config.INGEST_MAX_UNCOMPRESSED_MB * MB,
  });
  const uploadId = randomUUID();
  const scope = scopeOf(user);
  await deps.store.create(
    scope,
    {
      _id: uploadId,
      organization: user.organization,
      uploader: user,
      fileName: name ?? '',
      kind,
      size: bytes.length,
      state: 'queued',
      processedRows: 0,
      totalRows: 0,
    },
    bytes,
  );
  try {
    await deps.audit.record(actor, 'upload', [], {
      what: 'accepted',
      jobId: uploadId,
      fileName: (name ?? '').slice(0, 500),
      size: bytes.length,
    });
  } catch (err) {
    await deps.store.progress(scope, uploadId, { state: 'failed' }).catch(() => undefined);
    throw err;
  }
  await deps.enqueue({
    uploadId,
    fileKey: uploadId,
    uploader: user,
    requestId: actor.requestId,
    clientAddress: actor.clientAddress,
  });
  deps.logger.info({ uploadId, size: bytes.length, kind }, 'upload queued');
  return uploadId;
}

/**
 * An upload's job as its organization sees it (not recorded: it names no record). Another
 * organization's is not found, and the attempt is recorded (`access.refused`, issue 21) first.
 */
export async function jobOf(
  deps: IngestDeps,
  user: UserIdentity,
  jobId: string,
  actor: AuditActor,
): Promise<IngestJob> {
  const upload = await deps.store.get(scopeOf(user), jobId);
  if (upload === OUTSIDE_SCOPE) await deps.audit.record(actor, 'access.refused', [], { status: 404, jobId });
  if (!upload || upload === OUTSIDE_SCOPE) throw notFound(JOB_NOT_FOUND);
  return {
    jobId,
    state: upload.state,
    processedRows: upload.processedRows,
    totalRows: upload.totalRows,
    ...(upload.result ? { result: upload.result } : {}),
  };
}

/** Waits for an upload's result up to `ms`; undefined if it is not done by then. */
export async function resultWithin(
  deps: IngestDeps,
  user: UserIdentity,
  uploadId: string,
  ms: number,
): Promise<BatchUploadResult | undefined> {
  const scope = scopeOf(user);
  const deadline = Date.now() + ms;
  for (let delay = 25; ; delay = Math.min(delay * 2, 250)) {
    const upload = await deps.store.get(scope, uploadId);
    if (upload !== OUTSIDE_SCOPE && upload?.result) return upload.result;
    if (Date.now() + delay > deadline) return undefined;
    await new Promise((r) => setTimeout(r, delay));
  }
}

/**
 * The schema's errors of a row's other fields, for a row already refused for cells that could not
 * be read (the records service never sees such a row): the whole row's problems at once.
 */
function otherFieldErrors(r: SheetRow): BatchRowError[] {
  const parsed = RecordInputSchema.safeParse(r.body);
  if (parsed.success) return [];
  const failed = new Set<string>(r.errors.map((e) => e.field));
  return fieldErrors(parsed.error)
    .filter((e) => !failed.has(e.field))
    .map((e) => ({ row: r.row, field: e.field || 'record', message: e.message }));
}

/** What a finished upload answers. */
export function resultOf(
  total: number,
  successful: number,
  errors: BatchRowError[],
  message?: string,
): BatchUploadResult {
  const listed = errors.slice(0, MAX_LISTED_ERRORS);
  const unlisted = errors.length - listed.length;
  const notes = [
    message,
    successful === 0 && total > 0 && !message ? 'No records were uploaded: every row has errors.' : undefined,
    unlisted > 0 ? `${unlisted.toLocaleString('en-US')} more errors are not listed.` : undefined,
  ].filter(Boolean);
  return {
    success: successful > 0,
    totalRecords: total,
    successfulRecords: successful,
    errors: listed,
    ...(notes.length ? { message: notes.join(' ') } : {}),
  };
}

/**
 * An incident number repeated inside the file: the first occurrence counts (valid or not), each
 * later one is its row's error — so fixing the first row and uploading again does not turn up a
 * clash that the first upload hid.
 */
function markRepeatedNumbers(rows: SheetRow[]): void {
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

/**
 * What an upload's completion event says: its job and counts (rows refused for a taken number are
 * duplicates; rows valid here but not sent because the upload stopped before them, `notImported`).
 */
interface CompletionCounts {
  rows: number;
  created: number;
  invalid: number;
  duplicates: number;
  fileRefused?: boolean;
  notImported?: number;
  stoppedAtRow?: number;
}

/**
 * The upload's plan (docs/adr/0015): the records service is told, in row order, the incident
 * number of every row the job will send, and answers where the job must stop if the uploader's
 * budget of numbers held by other agencies runs out. Asked once per upload: a retried job reads
 * the plan stored with it.
 */
async function planOf(
  deps: IngestDeps,
  upload: { _id: string; uploader: UserIdentity; plan?: RecordImportPlan },
  rows: readonly SheetRow[],
  requestId: string | null | undefined,
): Promise<RecordImportPlan> {
  if (upload.plan) return upload.plan;
  const numbered: RecordImportPlanRequest['rows'] = [];
  for (const r of rows) {
    if (r.errors.length) continue; // never sent
    const number = RecordFieldsSchema.shape.incidentNumber.safeParse(r.body.incidentNumber);
    if (number.success) numbered.push({ row: r.row, incidentNumber: number.data });
  }
  return numbered.length ? deps.records.planImport(upload.uploader, upload._id, numbered, requestId) : {};
}

/**
 * Records an upload's completion in the audit trail as the uploader, with the upload request's id
 * and client address (kept with the job): one event, or one per 1,000 records it created. The
 * events' ids are the upload's, so a job retried after a crash before its result was stored
 * records them once.
 */
async function recordCompletion(
  deps: IngestDeps,
  data: IngestJobData,
  uploader: UserIdentity,
  recordIds: readonly string[],
  counts: CompletionCounts,
): Promise<void> {
  const actor: AuditActor = {
    userId: uploader.userId,
    organization: uploader.organization,
    requestId: data.requestId ?? null,
    clientAddress: data.clientAddress ?? null,
  };
  const detail = { what: 'completed', jobId: data.uploadId, ...counts };
  await deps.audit.publish(
    auditEvents(AUDIT_SERVICE, 'upload', actor, recordIds, { detail, id: completionAuditId(data.uploadId) }),
  );
}

/** Whether a refused row's errors say its incident number is taken (in the file or the store). */
const isDuplicate = (errors: ReadonlyArray<{ field: string; message: string }>) =>
  errors.some((e) => e.field === 'incidentNumber' && e.message === INCIDENT_NUMBER_TAKEN);

/**
 * The worker's job: reads the stored file, checks every row as the records service's create does
 * (through its import path, `INGEST_BATCH_ROWS` at a time with `INGEST_BATCHES_IN_FLIGHT` requests
 * in flight, as the uploader, with the upload request's id), records the completion in the audit
 * trail (with the ids of the records the upload created) and stores the result.
 * Idempotent: each row's record is keyed by upload id + row, so a retried job (after a crash, a
 * `kill -9`) finds the records it made and creates the rest; a finished upload is not run again.
 */
export async function processUpload(deps: IngestDeps, data: IngestJobData): Promise<BatchUploadResult> {
  const scope = scopeOf(data.uploader);
  const upload = await deps.store.get(scope, data.uploadId);
  if (!upload || upload === OUTSIDE_SCOPE) throw new Error(`upload ${data.uploadId} is not stored`);
  if (upload.result) return upload.result;
  await deps.store.progress(scope, upload._id, { state: 'processing' });

  let table: ReturnType<typeof readRows>;
  try {
    // The file's bytes are held by no variable: once read, they go with the workbook.
    table = readRows(await deps.store.file(scope, data.fileKey), upload.kind, {
      maxRows: deps.config.INGEST_MAX_ROWS,
      maxCellChars: deps.config.INGEST_MAX_CELL_CHARS,
    });
  } catch (err) {
    // The file as a whole is refused (no header, too many rows, unreadable): nothing is stored.
    if (!(err instanceof WorkbookRefused)) deps.logger.warn({ err, uploadId: upload._id }, 'workbook unreadable');
    const message = err instanceof WorkbookRefused ? err.message : 'The file could not be read as an Excel workbook.';
    const result = resultOf(0, 0, [], message);
    await recordCompletion(deps, data, upload.uploader, [], {
      rows: 0,
      created: 0,
      invalid: 0,
      duplicates: 0,
      fileRefused: true,
    });
    await deps.store.progress(scope, upload._id, { state: 'completed', result });
    return result;
  }

  // Reading a large workbook leaves hundreds of MB of garbage (its XML, SheetJS's cells) that V8
  // would keep for a long while after; a full collection now keeps the worker's memory near what
  // it holds (the process runs with --expose-gc; without it this does nothing).
  (globalThis as { gc?: () => void }).gc?.();
  markRepeatedNumbers(table.rows);
  const total = table.rows.length;
  const plan = await planOf(deps, upload, table.rows, data.requestId);
  // Rows from here on are not sent (the uploader's budget is spent: docs/adr/0015).
  const stopAt = plan.stopAt ?? Number.POSITIVE_INFINITY;
  await deps.store.progress(scope, upload._id, { totalRows: total, processedRows: 0, plan });
  const errors: BatchRowError[] = [];
  const createdIds: string[] = [];
  let successful = 0;
  let duplicates = 0;
  let notImported = 0;
  let processed = 0;
  const size = deps.config.INGEST_BATCH_ROWS;
  // Each batch's rows are let go once tallied, so the job's memory shrinks as it goes.
  const batches: Array<SheetRow[] | undefined> = Array.from({ length: Math.ceil(total / size) }, (_, i) =>
    table.rows.slice(i * size, (i + 1) * size),
  );
  table.rows.length = 0;
  const answered: Array<Map<string, RecordImportOutcome> | undefined> = [];
  let next = 0;
  let tallied = 0;
  let saved = Promise.resolve();
  const { _id: uploadId, uploader } = upload;

  /** The answered batches next in row order, tallied (so errors stay in row order). */
  function tally() {
    const before = tallied;
    for (let outcomeOf = answered[tallied]; outcomeOf; outcomeOf = answered[tallied]) {
      const rows = batches[tallied] as SheetRow[];
      answered[tallied] = undefined;
      batches[tallied] = undefined;
      tallied++;
      for (const r of rows) {
        if (r.errors.length) {
          if (isDuplicate(r.errors)) duplicates++;
          errors.push(...r.errors, ...otherFieldErrors(r));
          continue;
        }
        if (r.row >= stopAt) {
          notImported++; // the result's message says why, once
          continue;
        }
        const o = outcomeOf.get(`${uploadId}:${r.row}`);
        if (o && (o.outcome === 'created' || o.outcome === 'existed')) {
          successful++;
          if (o.id) createdIds.push(o.id);
        } else {
          const refused = o?.errors?.length ? o.errors : [{ field: 'record', message: 'was not created' }];
          if (isDuplicate(refused)) duplicates++;
          errors.push(...refused.map((e) => ({ row: r.row, field: e.field, message: e.message })));
        }
      }
      processed += rows.length;
    }
    if (tallied === before) return saved; // an answer ahead of an earlier batch's: nothing new
    // One progress write after another, so the count stored never goes back.
    const now = processed;
    saved = saved.then(() => deps.store.progress(scope, uploadId, { processedRows: now }));
    return saved;
  }

  // A few import requests in flight: the records service checks a batch while the store writes
  // the one before. Each batch's rows are keyed by upload id + row, so order does not matter to
  // what is created; in-file repeats were marked before (markRepeatedNumbers).
  async function lane(): Promise<void> {
    while (next < batches.length) {
      const at = next++;
      const valid = (batches[at] as SheetRow[]).filter((r) => r.errors.length === 0 && r.row < stopAt);
      const outcomes = valid.length
        ? await deps.records.importRows(
            uploader,
            valid.map((r) => ({ key: `${uploadId}:${r.row}`, body: r.body })),
            data.requestId,
          )
        : [];
      answered[at] = new Map(outcomes.map((o) => [o.key, o]));
      await tally();
    }
  }
  await Promise.all(Array.from({ length: Math.min(deps.config.INGEST_BATCHES_IN_FLIGHT, batches.length) }, lane));
  const stopped =
    plan.stopAt !== undefined
      ? uploadStoppedMessage(plan.stopAt, plan.retryAt ? new Date(plan.retryAt) : new Date())
      : undefined;
  const result = resultOf(total, successful, errors, stopped);
  // Recorded before the result is stored: a crash in between runs the job again, which records the
  // same events (same ids) and stores the result.
  await recordCompletion(deps, data, uploader, createdIds, {
    rows: total,
    created: successful,
    invalid: total - successful - duplicates - notImported,
    duplicates,
    ...(plan.stopAt !== undefined ? { notImported, stoppedAtRow: plan.stopAt } : {}),
  });
  await deps.store.progress(scope, upload._id, { state: 'completed', result });
  deps.logger.info({ uploadId: upload._id, total, successful, errors: errors.length }, 'upload processed');
  return result;
}
