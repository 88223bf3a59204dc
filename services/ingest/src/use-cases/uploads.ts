import { createHash, randomUUID } from 'node:crypto';
import {
  type BatchRowError,
  type BatchUploadResult,
  INCIDENT_NUMBER_TAKEN,
  type IngestJob,
  type RecordCheckOutcome,
  type RecordImportOutcome,
  type RecordImportPlan,
  type RecordImportPlanRequest,
  type UserIdentity,
  uploadStoppedMessage,
} from '@nrad/contracts';
import { type AuditActor, type AuditTrail, auditEvents, type Logger, notFound, scopeOf } from '@nrad/service-kit';
import type { IngestConfig } from '../config.ts';
import type { RecordsApi } from '../data/records-client.ts';
import { OUTSIDE_SCOPE, type UploadDoc, type UploadStore } from '../data/uploads.ts';
import { checkUpload, checkUploadName, type SheetRow, type WorkbookKind } from '../domain/index.ts';
import type { ParsedUpload, ParseOutcome } from '../jobs/parse.ts';
import type { IngestJobData } from '../jobs/queue.ts';
import { withinAgencyLimits } from './limits.ts';

export interface IngestDeps {
  config: IngestConfig;
  store: UploadStore;
  records: RecordsApi;
  enqueue(data: IngestJobData): Promise<unknown>;
  logger: Logger;
  /** The audit trail (issue 21): an upload accepted (by the route) and completed (by the worker). */
  audit: Pick<AuditTrail, 'record' | 'publish'>;
  /**
   * Reads a stored file's rows off the event loop, within the job's budget (jobs/parse.ts: a worker
   * thread per job).
   */
  parse(bytes: Uint8Array, kind: WorkbookKind): Promise<ParseOutcome>;
}

/** The service's name in its audit events. */
export const AUDIT_SERVICE = 'ingest';
/** The id of an upload's completion events: the same on a retried job, so the trail keeps them once. */
export const completionAuditId = (uploadId: string) => `${uploadId}-completed`;

export const JOB_NOT_FOUND = 'Upload job not found';
/** The result's message of a job whose file is no longer kept (a retry after INGEST_KEEP_HOURS). */
export const fileGoneMessage = (hours: number) =>
  `The uploaded file is no longer kept (files are kept ${hours.toLocaleString('en-US')} hours for a retry); upload it again.`;
/** The result's message of a job that carries no grant to create the rows on the uploader's behalf. */
export const NO_GRANT_MESSAGE =
  'The upload could not be processed: it came without the permission to create records on your behalf; upload it again.';
/** Errors listed in a result at most; the rest are counted in its message. */
export const MAX_LISTED_ERRORS = 10_000;

const MB = 1024 * 1024;

/**
 * Checks an uploaded file (name, type, size; the agency's limits; what it really is, a zip bomb, a
 * sheet's declared cells), stores it, records it in the audit trail (`upload`, accepted, with the
 * file's SHA-256) and queues its job with the request's id and client address (the worker's
 * completion event names them); resolves the upload id. Throws `UploadRefused` (a 4xx) or
 * `UploadLimited` (429, recorded as `rate.limited`) before anything is stored. An upload whose
 * acceptance cannot be recorded is not queued: it is marked failed and the request fails.
 */
export async function acceptUpload(
  deps: IngestDeps,
  user: UserIdentity,
  file: { name: string | undefined; bytes: Uint8Array } | undefined,
  actor: AuditActor,
  grant: string | undefined,
): Promise<string> {
  const name = file?.name;
  const bytes = file?.bytes ?? new Uint8Array();
  const limits = {
    maxBytes: deps.config.INGEST_MAX_FILE_MB * MB,
    maxUncompressedBytes: deps.config.INGEST_MAX_UNCOMPRESSED_MB * MB,
    maxCells: deps.config.INGEST_MAX_CELLS,
  };
  // No file, a wrong name or size: SPEC's messages come before any limit.
  checkUploadName(name, bytes, limits);
  const uploadId = randomUUID();
  const scope = scopeOf(user);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await withinAgencyLimits(deps, user, bytes.length, actor, async () => {
    const kind = await checkUpload(name, bytes, limits);
    await deps.store.create(
      scope,
      {
        _id: uploadId,
        organization: user.organization,
        uploader: user,
        fileName: name ?? '',
        kind,
        size: bytes.length,
        sha256,
        state: 'queued',
        processedRows: 0,
        totalRows: 0,
      },
      bytes,
    );
  });
  try {
    await deps.audit.record(actor, 'upload', [], {
      what: 'accepted',
      jobId: uploadId,
      fileName: (name ?? '').slice(0, 500),
      size: bytes.length,
      sha256,
    });
  } catch (err) {
    // Never queued: its file goes now (else the sweep deletes it after INGEST_KEEP_HOURS).
    await deps.store.progress(scope, uploadId, { state: 'failed' }).catch(() => undefined);
    await deps.store.deleteFile(scope, uploadId).catch(() => undefined);
    throw err;
  }
  await deps.enqueue({
    uploadId,
    fileKey: uploadId,
    uploader: user,
    requestId: actor.requestId,
    clientAddress: actor.clientAddress,
    ...(grant ? { grant } : {}),
  });
  deps.logger.info({ uploadId, size: bytes.length }, 'upload queued');
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

/** What a finished upload answers; `more`, errors found beyond those in `errors` (not kept). */
export function resultOf(
  total: number,
  successful: number,
  errors: BatchRowError[],
  message?: string,
  more = 0,
): BatchUploadResult {
  const listed = errors.slice(0, MAX_LISTED_ERRORS);
  const unlisted = errors.length - listed.length + more;
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
 * number of every row the job will send (the parse worker lists them), and answers where the job
 * must stop if the uploader's budget of numbers held by other agencies runs out. Asked once per
 * upload: a retried job reads the plan stored with it.
 */
async function planOf(
  deps: IngestDeps,
  upload: { _id: string; uploader: UserIdentity; plan?: RecordImportPlan },
  numbered: RecordImportPlanRequest['rows'],
  grant: string,
  requestId: string | null | undefined,
): Promise<RecordImportPlan> {
  if (upload.plan) return upload.plan;
  return numbered.length ? deps.records.planImport(grant, upload.uploader, upload._id, numbered, requestId) : {};
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

/** A full collection, when the process runs with --expose-gc (the service does); else nothing. */
const collectGarbage = () => (globalThis as { gc?: () => void }).gc?.();

/** Whether a refused row's errors say its incident number is taken (in the file or the store). */
const isDuplicate = (errors: ReadonlyArray<{ field: string; message: string }>) =>
  errors.some((e) => e.field === 'incidentNumber' && e.message === INCIDENT_NUMBER_TAKEN);

/** A refused row's problems: those found here, then those the records service found in its other fields. */
function rowErrors(r: SheetRow, checked: RecordCheckOutcome | undefined): BatchRowError[] {
  const failed = new Set<string>(r.errors.map((e) => e.field));
  const more = (checked?.errors ?? [])
    .filter((e) => !failed.has(e.field))
    .map((e) => ({ row: r.row, field: e.field, message: e.message }));
  return [...r.errors, ...more];
}

/**
 * The worker's job: reads the stored file in a worker thread within the job's budget
 * (`deps.parse`), sends every row to the records service's import path (`INGEST_BATCH_ROWS` at a
 * time with `INGEST_BATCHES_IN_FLIGHT` requests in flight, as the uploader, with the upload
 * request's id) — to be created, or, for a row refused here, only checked so that every problem of
 * the row is listed at once — records the completion in the audit trail (with the ids of the records
 * the upload created), stores the result and deletes the file (issue 37).
 * Idempotent: each row's record is keyed by upload id + row, so a retried job (after a crash, a
 * `kill -9`) finds the records it made and creates the rest; a finished upload is not run again.
 */
export async function processUpload(deps: IngestDeps, data: IngestJobData): Promise<BatchUploadResult> {
  const scope = scopeOf(data.uploader);
  const upload = await deps.store.get(scope, data.uploadId);
  if (!upload || upload === OUTSIDE_SCOPE) throw new Error(`upload ${data.uploadId} is not stored`);
  if (upload.result) return upload.result;
  await deps.store.progress(scope, upload._id, { state: 'processing' });

  /** Ends the job without a row created: the file as a whole is refused, or no longer kept. */
  const refuse = async (message: string) => {
    const result = resultOf(0, 0, [], message);
    await recordCompletion(deps, data, upload.uploader, [], {
      rows: 0,
      created: 0,
      invalid: 0,
      duplicates: 0,
      fileRefused: true,
    });
    await deps.store.progress(scope, upload._id, { state: 'completed', result });
    await deps.store.deleteFile(scope, upload._id);
    return result;
  };

  // Without the gateway's grant the records service creates nothing for the uploader (a job queued
  // before grants were kept, or an upload that did not come through the gateway).
  const { grant } = data;
  if (!grant) return refuse(NO_GRANT_MESSAGE);
  const file = await deps.store.file(scope, data.fileKey);
  if (!file) return refuse(fileGoneMessage(deps.config.INGEST_KEEP_HOURS));
  const parsing = deps.parse(file, upload.kind);
  // The file's bytes are the thread's now; what this thread held of them (the stored chunks, the
  // upload's request) goes before the parse's peak rather than after it.
  collectGarbage();
  const parsed = await parsing;
  if ('refused' in parsed) {
    // No header, too many rows or cells, unreadable, over the job's memory or time: nothing is stored.
    if (parsed.budget) deps.logger.warn({ uploadId: upload._id, budget: parsed.budget }, 'upload over its budget');
    return refuse(parsed.refused);
  }
  // Which reader read it: a file left to SheetJS whole needs the memory the stream reader does not.
  deps.logger.info({ uploadId: upload._id, rows: parsed.total, reader: parsed.reader }, 'upload read');

  try {
    return await importParsed(deps, data, grant, upload, parsed);
  } finally {
    await parsed.close();
  }
}

/**
 * The rows of a file read (held by its parse thread, taken a batch at a time) sent to the records
 * service, the completion recorded, the result stored and the file deleted.
 */
async function importParsed(
  deps: IngestDeps,
  data: IngestJobData,
  grant: string,
  upload: UploadDoc,
  parsed: ParsedUpload,
): Promise<BatchUploadResult> {
  const scope = scopeOf(data.uploader);
  const { total } = parsed;
  const plan = await planOf(deps, upload, parsed.planRows, grant, data.requestId);
  // Rows from here on are not sent (the uploader's budget is spent: docs/adr/0015).
  const stopAt = plan.stopAt ?? Number.POSITIVE_INFINITY;
  await deps.store.progress(scope, upload._id, { totalRows: total, processedRows: 0, plan });
  // The errors listed in the result (MAX_LISTED_ERRORS), and how many more were found: a file of
  // 100,000 bad rows does not hold a million errors in memory.
  const errors: BatchRowError[] = [];
  let unlisted = 0;
  const listError = (found: BatchRowError[]) => {
    const room = Math.max(0, MAX_LISTED_ERRORS - errors.length);
    if (found.length > room) unlisted += found.length - room;
    for (const e of room < found.length ? found.slice(0, room) : found) errors.push(e);
  };
  const createdIds: string[] = [];
  let successful = 0;
  let duplicates = 0;
  let notImported = 0;
  let processed = 0;
  const size = deps.config.INGEST_BATCH_ROWS;
  const batchCount = Math.ceil(total / size);
  // Each batch's rows are taken from the parse thread when a lane sends them and let go once
  // tallied, so the job holds only the batches under way.
  const batches: Array<SheetRow[] | undefined> = [];
  interface Answer {
    outcomes: Map<string, RecordImportOutcome>;
    checked: Map<string, RecordCheckOutcome>;
  }
  const answered: Array<Answer | undefined> = [];
  let next = 0;
  let tallied = 0;
  let saved = Promise.resolve();
  const { _id: uploadId, uploader } = upload;
  const keyOf = (r: SheetRow) => `${uploadId}:${r.row}`;

  /** The answered batches next in row order, tallied (so errors stay in row order). */
  function tally() {
    const before = tallied;
    for (let answer = answered[tallied]; answer; answer = answered[tallied]) {
      const rows = batches[tallied] as SheetRow[];
      answered[tallied] = undefined;
      batches[tallied] = undefined;
      tallied++;
      for (const r of rows) {
        if (r.errors.length) {
          if (isDuplicate(r.errors)) duplicates++;
          listError(rowErrors(r, answer.checked.get(keyOf(r))));
          continue;
        }
        if (r.row >= stopAt) {
          notImported++; // the result's message says why, once
          continue;
        }
        const o = answer.outcomes.get(keyOf(r));
        if (o && (o.outcome === 'created' || o.outcome === 'existed')) {
          successful++;
          if (o.id) createdIds.push(o.id);
        } else {
          const refused = o?.errors?.length ? o.errors : [{ field: 'record', message: 'was not created' }];
          if (isDuplicate(refused)) duplicates++;
          listError(refused.map((e) => ({ row: r.row, field: e.field, message: e.message })));
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
  // what is created; in-file repeats were marked before (the parse worker). A row refused here goes
  // with its batch to be checked only, never created. Batches are taken from the parse thread in
  // the order their numbers are drawn (its answers come in the order asked).
  async function lane(): Promise<void> {
    while (next < batchCount) {
      const at = next++;
      const rows = await parsed.take(size);
      batches[at] = rows;
      const item = (r: SheetRow) => ({ key: keyOf(r), body: r.body });
      const valid = rows.filter((r) => r.errors.length === 0 && r.row < stopAt).map(item);
      const check = rows.filter((r) => r.errors.length > 0).map(item);
      const answer =
        valid.length || check.length
          ? await deps.records.importRows(grant, uploader, valid, data.requestId, check)
          : { results: [] };
      answered[at] = {
        outcomes: new Map(answer.results.map((o) => [o.key, o])),
        checked: new Map((answer.checked ?? []).map((c) => [c.key, c])),
      };
      await tally();
      // A batch's rows, its request and answer live across a second of network: promoted to the
      // old generation, they would pile up until V8's next full collection (the process's heap
      // grew 100 MB over a 100,000-row job). One collection per batch (--expose-gc; a few ms on
      // this heap) keeps the job's memory to the batches under way.
      collectGarbage();
    }
  }
  await Promise.all(Array.from({ length: Math.min(deps.config.INGEST_BATCHES_IN_FLIGHT, batchCount) }, lane));
  const stopped =
    plan.stopAt !== undefined
      ? uploadStoppedMessage(plan.stopAt, plan.retryAt ? new Date(plan.retryAt) : new Date())
      : undefined;
  const result = resultOf(total, successful, errors, stopped, unlisted);
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
  // The file is not kept once its job has ended (the sweep deletes it if this does not happen).
  await deps.store.deleteFile(scope, upload._id);
  deps.logger.info({ uploadId: upload._id, total, successful, errors: errors.length + unlisted }, 'upload processed');
  return result;
}

/**
 * A job that failed its last attempt: its upload is marked failed (the screen says so), its file
 * kept INGEST_KEEP_HOURS for a retry from the queue board.
 */
export async function uploadFailed(deps: IngestDeps, data: IngestJobData, err: unknown): Promise<void> {
  deps.logger.error({ err, uploadId: data.uploadId }, 'upload job failed its last attempt');
  await deps.store.progress(scopeOf(data.uploader), data.uploadId, { state: 'failed' });
}
