import { z } from 'zod';
import { ObjectIdSchema } from './common.ts';
import { IdentitySchema } from './identity.ts';
import { retryTimeText } from './records.ts';

/**
 * Batch upload (SPEC §5, §7): `POST /api/records/batch-upload` and its job, and the records
 * service's internal import path the ingest worker creates rows through.
 */

/** SPEC §5 and §9: the workbooks an upload takes, by the file's name (letter case aside). */
export type WorkbookKind = 'xlsx' | 'xls';

/** The kind a file name says (ignoring letter case and surrounding spaces), or undefined. */
export function workbookKindOfName(name: string): WorkbookKind | undefined {
  const lower = name.trim().toLowerCase();
  if (lower.endsWith('.xlsx')) return 'xlsx';
  if (lower.endsWith('.xls')) return 'xls';
  return undefined;
}

/** SPEC §5's texts for an upload without a file or with another kind of file (toast title: text). */
export const BATCH_UPLOAD_MESSAGES = {
  noFile: 'No File Selected: Please select an Excel file to upload.',
  invalidType: 'Invalid File Type: Please select an Excel file (.xlsx or .xls)',
} as const;

/** The name `GET /api/records/template` gives its file. */
export const TEMPLATE_FILE_NAME = 'nrad-records-template.xlsx';

/** A problem of one spreadsheet row: `row` as a person sees it (the header is row 1). */
export const BatchRowErrorSchema = z.object({
  row: z.number().int().min(1),
  field: z.string(),
  message: z.string(),
});
export type BatchRowError = z.infer<typeof BatchRowErrorSchema>;

/** SPEC §7's batch upload result. */
export const BatchUploadResultSchema = z.object({
  success: z.boolean(),
  totalRecords: z.number().int().min(0),
  successfulRecords: z.number().int().min(0),
  errors: z.array(BatchRowErrorSchema),
  message: z.string().optional(),
});
export type BatchUploadResult = z.infer<typeof BatchUploadResultSchema>;

export const INGEST_JOB_STATES = ['queued', 'processing', 'completed', 'failed'] as const;
export type IngestJobState = (typeof INGEST_JOB_STATES)[number];

/** `GET /api/ingest/jobs/{jobId}`: where an upload is. */
export const IngestJobSchema = z.object({
  jobId: z.string(),
  state: z.enum(INGEST_JOB_STATES),
  processedRows: z.number().int().min(0),
  totalRows: z.number().int().min(0),
  result: BatchUploadResultSchema.optional(),
});
export type IngestJob = z.infer<typeof IngestJobSchema>;

/** `POST /api/records/batch-upload` answered before the job ended (always with `?async=1`). */
export const BatchUploadAcceptedSchema = z.object({ jobId: z.string() });
export type BatchUploadAccepted = z.infer<typeof BatchUploadAcceptedSchema>;

/** Rows the records service imports per request at most. */
export const RECORD_IMPORT_MAX_ITEMS = 4000;

const ImportItemSchema = z.object({ key: z.string().min(1).max(200), body: z.unknown() });

/**
 * `POST /internal/records/import` (records service; service identity, never routed by the
 * gateway): create records for `owner` as its single create would, each with its `records.created`
 * event. `key` makes a row's import idempotent: the same key never creates a second record.
 * `check` are rows the ingest worker already refused (a cell it could not read, a number repeated
 * in the file): they are only checked, never created, so that the result lists every problem of a
 * row at once (issue 37). A request has items, rows to check, or both.
 */
export const RecordImportRequestSchema = z
  .object({
    owner: IdentitySchema.options[0],
    items: z.array(ImportItemSchema).max(RECORD_IMPORT_MAX_ITEMS),
    check: z.array(ImportItemSchema).max(RECORD_IMPORT_MAX_ITEMS).optional(),
  })
  .refine((r) => r.items.length + (r.check?.length ?? 0) > 0, { message: 'items: nothing to import or check' });
export type RecordImportRequest = z.infer<typeof RecordImportRequestSchema>;

export const RECORD_IMPORT_OUTCOMES = ['created', 'existed', 'invalid', 'taken'] as const;

/**
 * One item's outcome, in the request's order: `created`; `existed` (its key was imported before:
 * nothing new); `invalid` (field errors, as a single create would refuse it); `taken` (its incident
 * number belongs to another record).
 */
export const RecordImportOutcomeSchema = z.object({
  key: z.string(),
  outcome: z.enum(RECORD_IMPORT_OUTCOMES),
  id: ObjectIdSchema.optional(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type RecordImportOutcome = z.infer<typeof RecordImportOutcomeSchema>;

/** A row of `check`: each of its problems as a single create would list them (none: it is valid). */
export const RecordCheckOutcomeSchema = z.object({
  key: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })),
});
export type RecordCheckOutcome = z.infer<typeof RecordCheckOutcomeSchema>;

/** Each item's outcome in order; `checked`, each row of `check` in order (absent when none was sent). */
export const RecordImportResponseSchema = z.object({
  results: z.array(RecordImportOutcomeSchema),
  checked: z.array(RecordCheckOutcomeSchema).optional(),
});
export type RecordImportResponse = z.infer<typeof RecordImportResponseSchema>;

/** Rows one import plan names at most (an upload's rows, INGEST_MAX_ROWS, cannot be more). */
export const RECORD_IMPORT_PLAN_MAX_ROWS = 200_000;

/**
 * `POST /internal/records/import-plan` (records service; service identity): before a job imports
 * any row, the worker names each row it will send with its incident number, in row order. The
 * records service counts the rows whose number another organization holds against the uploader's
 * budget (docs/adr/0015) and answers where the upload must stop, if anywhere. The same upload's
 * plan asked again (a retried job) is answered the same and counted once.
 */
export const RecordImportPlanRequestSchema = z.object({
  owner: IdentitySchema.options[0],
  uploadId: z.string().min(1).max(200),
  rows: z
    .array(z.object({ row: z.number().int().min(1), incidentNumber: z.string().min(1).max(64) }))
    .max(RECORD_IMPORT_PLAN_MAX_ROWS),
});
export type RecordImportPlanRequest = z.infer<typeof RecordImportPlanRequestSchema>;

/**
 * Where an upload stops: `stopAt`, the first row not to import (none of the rows from it on are
 * sent), and `retryAt`, when the uploader's budget is whole again; neither when every row may be
 * imported.
 */
export const RecordImportPlanSchema = z.object({
  stopAt: z.number().int().min(1).optional(),
  retryAt: z.iso.datetime().optional(),
});
export type RecordImportPlan = z.infer<typeof RecordImportPlanSchema>;

/** The result's message of an upload stopped by its plan. */
export const uploadStoppedMessage = (row: number, retryAt: Date, now?: Date) =>
  `Stopped at row ${row}: too many incident numbers already used by other agencies; the rows from ${row} on were not imported. Try again after ${retryTimeText(retryAt, now)}.`;
