/**
 * Reading an upload's rows in a worker thread (issue 37): SheetJS parses a workbook synchronously,
 * and a 100,000-row sheet held the service's event loop for 90–100 s, so uploads and job polls of
 * every agency went unanswered meanwhile. Each job's file is read in a worker thread of its own,
 * started for the job and gone after it, with a budget: `memoryMb` of V8 heap (the worker's old
 * generation: a file that needs more ends the worker, not the service) and `timeoutMs` of wall
 * clock (the worker is terminated). A file over a budget is refused with a message for the
 * uploader, as a file refused as a whole is. The worker also counts the cells of an .xlsx before
 * parsing it (domain/cell-count.ts) and does the job's checks of the rows (domain/upload-rows.ts);
 * it keeps the rows and hands them out a batch at a time as the job sends them.
 */
import type { Worker } from 'node:worker_threads';
import type { RecordImportPlanRequest } from '@nrad/contracts';
import { startWorkerThread } from '@nrad/service-kit';
import type { SheetRow, WorkbookKind } from '../domain/index.ts';
import type { UploadReadLimits, UploadRows } from '../domain/upload-rows.ts';

/** A job's budget for reading its file. */
export interface ParseBudget {
  /** The worker's V8 heap (old generation), MB. */
  memoryMb: number;
  /** Wall-clock time from the worker's start to its answer, ms. */
  timeoutMs: number;
}

/** What the worker is given. */
export interface ParseRequest {
  bytes: Uint8Array;
  kind: WorkbookKind;
  limits: UploadReadLimits;
}

/**
 * What the worker answers: `parsed` (the rows are read and held there), then a `rows` answer to
 * each `take`; or `refused`; or `failed`.
 */
export type ParseMessage =
  | { type: 'parsed'; total: number; planRows: RecordImportPlanRequest['rows']; reader: UploadRows['reader'] }
  | { type: 'rows'; rows: SheetRow[] }
  | { type: 'refused'; message: string }
  | { type: 'failed'; message: string };

/** What the service asks of the worker once it has read the file: the next `count` rows. */
export interface TakeMessage {
  type: 'take';
  count: number;
}

/**
 * An upload's file read: its rows stay in the worker thread until taken, a batch at a time, so the
 * service never holds them all (issue 37: the process's peak is the parse's, not the parse's plus a
 * copy of every row).
 */
export interface ParsedUpload {
  /** The non-blank rows below the header. */
  total: number;
  /** The incident number of each row the job will send, in row order. */
  planRows: RecordImportPlanRequest['rows'];
  /** Which reader read the file (the stream reader, or SheetJS whole: domain/upload-rows.ts). */
  reader: UploadRows['reader'];
  /** The next `count` rows in sheet order (fewer at the end, none after); answered in call order. */
  take(count: number): Promise<SheetRow[]>;
  /** Ends the thread (rows not taken are dropped). */
  close(): Promise<void>;
}

/** The rows read, or the file refused as a whole (the message for the uploader). */
export type ParseOutcome = ParsedUpload | { refused: string; budget?: 'memory' | 'time' };

/** The messages of a file over its job's budget. */
export const PARSE_MESSAGES = {
  tooSlow: (seconds: number) =>
    `The file took longer than ${seconds.toLocaleString('en-US')} second${seconds === 1 ? '' : 's'} to read; split it into smaller files and upload them one at a time.`,
  tooMuchMemory: (megabytes: number) =>
    `The file needs more than ${megabytes.toLocaleString('en-US')} MB of memory to read; delete the rows and columns that are not records or split it into smaller files.`,
} as const;

/** The parse thread's young generation, MB (see startWorker). */
const YOUNG_GENERATION_MB = 16;

/** The worker (`parse-worker`, beside this module: startWorkerThread), given the file and its budget. */
function startWorker(request: ParseRequest, budget: ParseBudget): Worker {
  // The file is handed over, not copied, when its bytes are a whole buffer of their own.
  const { bytes } = request;
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const data = own ? bytes : new Uint8Array(bytes);
  const options = {
    workerData: { ...request, bytes: data },
    transferList: [data.buffer as ArrayBuffer],
    resourceLimits: {
      maxOldGenerationSizeMb: budget.memoryMb,
      // V8 sizes the young generation after the old one (192 MB beside 512), and a parse fills it
      // with short-lived strings: 16 MB took the 100,000-row file's peak from 625–643 to 513–561
      // MB of the process, in the same time.
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      stackSizeMb: 4,
    },
    stdout: false,
    stderr: false,
  };
  return startWorkerThread(import.meta.url, 'parse-worker', options);
}

/**
 * Reads an upload's rows in a worker thread within `budget`. Resolves the file read (its rows held
 * by the thread, to be taken; the caller closes it), or the refusal of a file refused as a whole or
 * over its budget (final: a retry would meet the same); rejects when the worker fails otherwise
 * (the job is retried). The budget bounds the read: once the rows are read, the thread only hands
 * them out. The file's bytes go to the thread: when they are a whole buffer of their own they are
 * moved there (the caller's are then empty), else copied.
 */
export function parseUpload(request: ParseRequest, budget: ParseBudget): Promise<ParseOutcome> {
  return new Promise<ParseOutcome>((resolve, reject) => {
    let settled = false;
    let ended: Error | undefined;
    const waiting: Array<{ resolve: (rows: SheetRow[]) => void; reject: (err: Error) => void }> = [];
    const worker = startWorker(request, budget);
    const finish = (outcome: ParseOutcome | Error, terminate = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (terminate) void worker.terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    /** The thread is gone: whatever is still asked of it fails (the job is retried). */
    const end = (err: Error) => {
      ended ??= err;
      for (const w of waiting.splice(0)) w.reject(err);
    };
    const timer = setTimeout(
      () => finish({ refused: PARSE_MESSAGES.tooSlow(budget.timeoutMs / 1000), budget: 'time' }, true),
      budget.timeoutMs,
    );
    const parsed = ({ total, planRows, reader }: Extract<ParseMessage, { type: 'parsed' }>): ParsedUpload => ({
      total,
      planRows,
      reader,
      take(count) {
        if (ended) return Promise.reject(ended);
        return new Promise<SheetRow[]>((resolveRows, rejectRows) => {
          waiting.push({ resolve: resolveRows, reject: rejectRows });
          worker.postMessage({ type: 'take', count } satisfies TakeMessage);
        });
      },
      async close() {
        end(new Error('the parse worker was closed'));
        await worker.terminate();
      },
    });
    worker.on('message', (m: ParseMessage) => {
      if (m.type === 'rows') waiting.shift()?.resolve(m.rows);
      else if (m.type === 'parsed') finish(parsed(m));
      else if (m.type === 'refused') finish({ refused: m.message });
      else {
        const err = new Error(`the parse worker failed: ${m.message}`);
        end(err);
        finish(err);
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      end(err);
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        finish({ refused: PARSE_MESSAGES.tooMuchMemory(budget.memoryMb), budget: 'memory' });
      } else finish(err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`the parse worker stopped (exit code ${code}) before it answered`);
      end(err);
      finish(err);
    });
  });
}
