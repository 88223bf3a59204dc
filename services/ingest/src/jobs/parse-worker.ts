/**
 * The parse worker's thread (jobs/parse.ts starts it for one job): reads the upload's rows
 * (domain/upload-rows.ts), says how many there are with the plan's rows, then hands them out as
 * the job asks (`take`) until it is ended; or sends the refusal of the file, or what failed. Built
 * as `dist/parse-worker.js` beside the service's bundle.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readUploadRows } from '../domain/upload-rows.ts';
import { WorkbookRefused } from '../domain/workbook.ts';
import type { ParseMessage, ParseRequest, TakeMessage } from './parse.ts';

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread (jobs/parse.ts)');
const send = (message: ParseMessage) => port.postMessage(message);
const { bytes, kind, limits } = workerData as ParseRequest;

try {
  const { rows, planRows, reader } = await readUploadRows(bytes, kind, limits);
  // What reading left is garbage now (a chunk and the shared strings of a stream read; for a file
  // SheetJS read, its XML and cells: hundreds of MB for 100,000 rows); a full collection keeps the
  // thread's heap to the rows while the job sends them (the service runs with --expose-gc; without
  // it this does nothing).
  (globalThis as { gc?: () => void }).gc?.();
  let at = 0;
  port.on('message', ({ count }: TakeMessage) => {
    const end = Math.min(rows.length, at + count);
    send({ type: 'rows', rows: rows.slice(at, end) });
    rows.fill(undefined as never, at, end); // sent (copied): let this thread's copy go
    at = end;
  });
  send({ type: 'parsed', total: rows.length, planRows, reader });
} catch (err) {
  if (err instanceof WorkbookRefused) send({ type: 'refused', message: err.message });
  else send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}
