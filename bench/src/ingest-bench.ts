/**
 * A batch upload of N rows end to end (issue 17): a seeded generator writes an .xlsx of N police
 * rows (about `invalidPercent` of them invalid, about `nearPercent` near-duplicates of suspects the
 * intelligence agency holds); the run times SheetJS reading the same file alone (the ingest
 * service's own `readRows`), then, through the gateway, upload → job done → every valid record
 * readable (the police list's total) → the Dashboard counting them → every expected auto-link
 * created, and reads the ingest process's peak RSS (VmHWM). The intelligence records are written
 * into the records, linking and stats stores before the services start (as bench:screens does).
 * With `secondRows` (issue 37), the intelligence agency uploads a file of that many rows 2 s after
 * the police job is taken up (its file being read): how long that upload took to be accepted, and
 * how long each read of its job took (every 500 ms, as the screen reads) until it ended; reads the
 * service did not answer (the gateway's 5xx) are counted, for both jobs.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import type { BatchUploadResult, CaseRecord, DashboardStats, IngestJob } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra';
import { readZipDirectory } from '@nrad/ingest-service/file-check';
import { readRows, readXlsxRows } from '@nrad/ingest-service/workbook';
import { importedRecordId } from '@nrad/records-service/import';
import mongoose from 'mongoose';
import { type AgencyUser, type RunContext, signInAgencyUsers, sleep, startBenchSystem } from './harness.ts';
import { machine, machineLine } from './report.ts';
import { NAME_VARIATIONS, Random, recordBody } from './seed.ts';
import { seedRecords, unsignedOwners } from './seeding.ts';
import { openServiceStores, type ServiceStores, servicesWriter } from './stores.ts';
import { uploadAndWait, uploadFile } from './upload-file.ts';

export { Cleanup } from './harness.ts';

export interface IngestBenchOptions extends RunContext {
  /** Rows of the uploaded file. */
  n: number;
  seed: number;
  /** Percent of rows that are invalid (a date of birth after the incident, or a bad amount). */
  invalidPercent: number;
  /** Percent of rows whose suspect is an intelligence record's, under a name variation. */
  nearPercent: number;
  /** Rows of a second agency's upload sent while the first is processed (0: none). */
  secondRows?: number;
}

/** The second agency's upload, sent while the first job was processed. */
export interface SecondUpload {
  rows: number;
  /** When it was sent, from the first upload's start (ms); and whether the first job was still reading its file. */
  sentAtMs: number;
  sentWhileParsing: boolean;
  /** Its POST → its answer (ms), and the answer's status (202 when accepted). */
  acceptedMs: number;
  acceptedStatus: number;
  /**
   * Each read of its job: how long it took (ms), its status (200, or the gateway's 5xx when the
   * service did not answer), and whether the first job was still processing.
   */
  polls: Array<{ ms: number; status: number; duringFirst: boolean }>;
  /** From its upload to its job done (ms); and its result. */
  jobMs: number;
  created: number;
}

export interface IngestReport {
  machine: ReturnType<typeof machine>;
  store: string;
  n: number;
  fileBytes: number;
  invalid: number;
  near: number;
  /** SheetJS reading the file in this process (`readRows`), ms. */
  parseMs: number;
  /** The stream reader the service uses (`readXlsxRows`) reading it in this process, ms. */
  streamMs: number;
  /** From sending the upload: its 202, the job done, all records readable, counted, linked (ms). */
  acceptedMs: number;
  jobMs: number;
  readableMs: number;
  statsMs: number;
  linkedMs: number;
  result: BatchUploadResult;
  /** Expected auto-links found when the run stopped waiting. */
  linksFound: number;
  /** The ingest process's peak resident memory (VmHWM), bytes; undefined where /proc has none. */
  workerPeakRss?: number;
  /** Reads of the first job while it was processed: how long each took (ms) and its status. */
  firstPolls: Array<{ ms: number; status: number }>;
  second?: SecondUpload;
  notes: string[];
}

/** How long each stage may take before the run reports what it got. */
const STAGE_TIMEOUT_MS = 30 * 60_000;

interface Generated {
  file: Uint8Array;
  /** 0-based indexes of the rows that are invalid / near-duplicates (row number = index + 2). */
  invalid: Set<number>;
  /** Row index → the intelligence record it duplicates. */
  near: Map<number, string>;
}

/** The police file: N rows, some invalid, some near-duplicates of `intelligence` records. */
function generateFile(
  n: number,
  rng: Random,
  invalidShare: number,
  nearShare: number,
  intelligence: readonly CaseRecord[],
): Generated {
  const bodies: Array<Record<string, unknown>> = [];
  const invalid = new Set<number>();
  const near = new Map<number, string>();
  const now = new Date();
  let nearUsed = 0;
  for (let i = 0; i < n; i++) {
    const body = recordBody(rng, 'BPS', `U${String(i + 1).padStart(6, '0')}`, now);
    if (rng.chance(invalidShare)) {
      invalid.add(i);
      if (rng.chance(0.5)) body.suspectDob = body.incidentDate;
      else body.caseAmount = '12.345';
    } else if (nearUsed < intelligence.length && rng.chance(nearShare)) {
      const source = intelligence[nearUsed++] as CaseRecord;
      const variation = rng.pick(NAME_VARIATIONS);
      Object.assign(body, {
        suspectName: variation.apply(rng, source.suspectName),
        suspectDob: source.suspectDob,
        incidentDate: source.incidentDate,
        caseAmount: source.caseAmount,
      });
      near.set(i, source.id);
    }
    bodies.push(body);
  }
  return { file: uploadFile(bodies), invalid, near };
}

/** Peak resident memory of a process (VmHWM of /proc/<pid>/status), bytes. */
function peakRss(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Polls `check` until it gives a value (infra's waitUntil), or fails naming `what`. */
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  let got: T | undefined;
  await waitUntil(
    what,
    async () => {
      got = await check();
      return got !== undefined;
    },
    timeoutMs,
  );
  return got as T;
}

export async function runIngestBench(options: IngestBenchOptions): Promise<IngestReport> {
  const { env, log, cleanup } = options;
  const host = machine();
  const rng = new Random(options.seed);
  const nearCount = Math.max(1, Math.round((options.n * options.nearPercent) / 100));
  const notes: string[] = [];

  // The intelligence agency's history (the near-duplicates' originals), written before the start.
  const intelligence: CaseRecord[] = [];
  let stores: ServiceStores | undefined;
  const seedIntelligence = async (infra: { mongoUrl: string }) => {
    const s = await openServiceStores(infra.mongoUrl, env);
    stores = s;
    cleanup.add(() => s.conn.close());
    const owners = unsignedOwners().filter((o) => o.agency === 'FIA');
    const writer = servicesWriter(s);
    await seedRecords(owners, nearCount, rng, log, async (docs) => {
      intelligence.push(...(await writer.write(docs)));
    });
    await writer.finish();
  };

  log(`Generating ${options.n.toLocaleString('en-US')} rows...`);
  const { system, base, guard } = await startBenchSystem({ ...options, beforeServices: seedIntelligence });
  return guard(async () => {
    const generated = generateFile(
      options.n,
      rng,
      options.invalidPercent / 100,
      options.nearPercent / 100,
      intelligence,
    );
    const fileBytes = generated.file.length;
    log(
      `File: ${(fileBytes / 1024 / 1024).toFixed(1)} MB, ${generated.invalid.size} invalid rows, ${generated.near.size} near-duplicates`,
    );

    log('Reading it with SheetJS alone (readRows)...');
    const parseStarted = performance.now();
    const table = readRows(generated.file, 'xlsx', { maxRows: options.n, maxCellChars: 10_000 });
    const parseMs = performance.now() - parseStarted;
    if (table.rows.length !== options.n) notes.push(`readRows read ${table.rows.length} rows of ${options.n}`);
    log('Reading it with the stream reader alone (readXlsxRows)...');
    const streamStarted = performance.now();
    const streamed = await readXlsxRows(generated.file, readZipDirectory(generated.file, Number.MAX_SAFE_INTEGER), {
      maxRows: options.n,
      maxCellChars: 10_000,
    });
    const streamMs = performance.now() - streamStarted;
    if (!isDeepStrictEqual(streamed, table)) notes.push('the stream reader read other rows than SheetJS');

    const [police, intelligenceUser] = await signInAgencyUsers(base, Date.now().toString(36));
    if (police?.agency !== 'BPS') throw new Error('no police user');
    if (intelligenceUser?.agency !== 'FIA') throw new Error('no intelligence user');
    const expected = options.n - generated.invalid.size;
    const secondRows = options.secondRows ?? 0;
    const secondFile = secondRows
      ? uploadFile(
          Array.from({ length: secondRows }, (_, i) =>
            recordBody(rng, 'FIA', `S${String(i + 1).padStart(6, '0')}`, new Date()),
          ),
        )
      : undefined;

    log('Uploading through the gateway (POST /api/records/batch-upload?async=1)...');
    const form = new FormData();
    form.append('file', new Blob([generated.file]), 'bench-upload.xlsx');
    const started = performance.now();
    const accepted = await police.http.call('POST', '/api/records/batch-upload?async=1', form);
    const acceptedMs = performance.now() - started;
    if (accepted.status !== 202)
      throw new Error(`the upload answered ${accepted.status}: ${accepted.text.slice(0, 300)}`);
    const { jobId } = JSON.parse(accepted.text) as { jobId: string };

    const firstPolls: IngestReport['firstPolls'] = [];
    let first: IngestJob | undefined;
    const second =
      secondFile &&
      runSecondUpload(intelligenceUser, secondFile, secondRows, started, () => first, log).catch((err: Error) => {
        notes.push(`the second agency's upload: ${err.message}`);
        return undefined;
      });
    const job = await until('the job', STAGE_TIMEOUT_MS, async () => {
      const read = await police.http.call('GET', `/api/ingest/jobs/${jobId}`);
      // A read the service did not answer (the gateway's 502/503/504) is counted, and read again.
      if (read.status !== 200) {
        firstPolls.push({ ms: read.ms, status: read.status });
        return undefined;
      }
      first = JSON.parse(read.text) as IngestJob;
      if (first.state === 'processing') firstPolls.push({ ms: read.ms, status: 200 });
      return first.state === 'completed' ? first : undefined;
    });
    const jobMs = performance.now() - started;
    const result = job.result as BatchUploadResult;
    log(`  job done in ${(jobMs / 1000).toFixed(1)} s: ${result.successfulRecords} of ${result.totalRecords} created`);
    if (result.successfulRecords !== expected) {
      notes.push(`the job created ${result.successfulRecords} records; the file has ${expected} valid rows`);
    }

    await until('every record readable', STAGE_TIMEOUT_MS, async () => {
      const page = await police.http.expect(200, 'GET', '/api/records?limit=1');
      return (page.total ?? 0) >= result.successfulRecords ? true : undefined;
    });
    const readableMs = performance.now() - started;

    const statsMs = await until('the Dashboard counting them', STAGE_TIMEOUT_MS, async () => {
      const stats = JSON.parse((await police.http.expect(200, 'GET', '/api/stats')).text) as DashboardStats;
      return stats.totalRecords >= result.successfulRecords ? performance.now() - started : undefined;
    }).catch((err: Error) => {
      notes.push(err.message);
      return Number.NaN;
    });

    // Every near-duplicate linked to its original (the pair's key: both ids sorted, joined by ':').
    const pairKeys = [...generated.near].map(([i, original]) => {
      const id = importedRecordId(`${jobId}:${i + 2}`).toHexString();
      return [id, original].sort().join(':');
    });
    let linksFound = 0;
    const { linking } = stores as ServiceStores;
    const linkedMs = await until('every expected auto-link', STAGE_TIMEOUT_MS, async () => {
      linksFound = await linking.links.countDocuments({ pairKey: mongoose.trusted({ $in: pairKeys }) });
      return linksFound >= pairKeys.length ? performance.now() - started : undefined;
    }).catch((err: Error) => {
      notes.push(`${err.message} (${linksFound} of ${pairKeys.length})`);
      return Number.NaN;
    });

    const secondReport = second ? await second : undefined;
    const workerPeakRss = peakRss(system.pids.ingest);
    return {
      machine: host,
      store: (stores as ServiceStores).name,
      n: options.n,
      fileBytes,
      invalid: generated.invalid.size,
      near: generated.near.size,
      parseMs,
      streamMs,
      acceptedMs,
      jobMs,
      readableMs,
      statsMs,
      linkedMs,
      result: { ...result, errors: result.errors.slice(0, 5) },
      linksFound,
      ...(workerPeakRss === undefined ? {} : { workerPeakRss }),
      firstPolls,
      ...(secondReport ? { second: secondReport } : {}),
      notes,
    };
  });
}

/** How long after the first job is taken up the second agency's upload is sent. */
const SECOND_DELAY_MS = 2000;

/**
 * The second agency's upload (issue 37): sent SECOND_DELAY_MS after the first job is taken up (while
 * its file is read), then its job read every 500 ms until it ends, each read timed.
 */
async function runSecondUpload(
  user: AgencyUser,
  file: Uint8Array,
  rows: number,
  firstStarted: number,
  first: () => IngestJob | undefined,
  log: (line: string) => void,
): Promise<SecondUpload> {
  await until('the first job processed', STAGE_TIMEOUT_MS, async () =>
    first()?.state === 'processing' || first()?.state === 'completed' ? true : undefined,
  );
  // Into the first file's parse (it starts once the job has fetched its file; it takes 8–15 s).
  await sleep(SECOND_DELAY_MS);
  const sentWhileParsing = first()?.state === 'processing' && first()?.totalRows === 0;
  const sent = performance.now();
  const report: SecondUpload = {
    rows,
    sentAtMs: sent - firstStarted,
    sentWhileParsing,
    acceptedMs: Number.NaN,
    acceptedStatus: 0,
    polls: [],
    jobMs: Number.NaN,
    created: 0,
  };
  try {
    const job = await uploadAndWait(user, file, {
      name: 'bench-second.xlsx',
      waitMs: STAGE_TIMEOUT_MS,
      onAnswer: (request, { ms, status }) => {
        if (request === 'job') report.polls.push({ ms, status, duringFirst: first()?.state !== 'completed' });
        else {
          report.acceptedMs = ms;
          report.acceptedStatus = status;
          log(
            `  the second agency's upload (${rows.toLocaleString('en-US')} rows) answered ${status} in ${ms.toFixed(0)} ms`,
          );
        }
      },
    });
    return { ...report, jobMs: performance.now() - sent, created: job.result?.successfulRecords ?? 0 };
  } catch (err) {
    // Not accepted (before issue 37: the gateway's 503 while the service parsed the first file).
    if (report.acceptedStatus !== 202) return report;
    throw err;
  }
}

/** The median, 95th percentile and largest of some reads' times (ms), and those not answered 200. */
function spread(reads: ReadonlyArray<{ ms: number; status: number }>): string {
  if (reads.length === 0) return 'none';
  const sorted = reads.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  const failed = reads.filter((r) => r.status !== 200);
  const statuses = [...new Set(failed.map((r) => r.status))].join(', ');
  return `${reads.length} reads: median ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${at(1).toFixed(0)} ms${failed.length ? `; ${failed.length} not answered (${statuses})` : ''}`;
}

const seconds = (ms: number) => (Number.isNaN(ms) ? 'not reached' : `${(ms / 1000).toFixed(1)} s`);

export function formatIngestReport(r: IngestReport): string {
  const m = r.machine;
  const endToEnd = Math.max(r.readableMs, r.statsMs || 0, r.linkedMs || 0);
  const lines = [
    machineLine(m),
    `Store:   ${r.store}`,
    `File:    ${r.n.toLocaleString('en-US')} rows, ${(r.fileBytes / 1024 / 1024).toFixed(1)} MB .xlsx; ${r.invalid} invalid, ${r.near} near-duplicates of intelligence records`,
    '',
    `SheetJS reading the file alone (readRows):   ${seconds(r.parseMs)}`,
    `the stream reader alone (readXlsxRows):      ${seconds(r.streamMs)}  (the service's reader, ADR 0011)`,
    `upload → 202 {jobId}:                        ${seconds(r.acceptedMs)}`,
    `upload → job done:                           ${seconds(r.jobMs)}  (${r.result.successfulRecords.toLocaleString('en-US')} of ${r.result.totalRecords.toLocaleString('en-US')} created)`,
    `upload → every valid record readable:        ${seconds(r.readableMs)}`,
    `upload → the Dashboard counting them:        ${seconds(r.statsMs)}`,
    `upload → every expected auto-link created:   ${seconds(r.linkedMs)}  (${r.linksFound} of ${r.near})`,
    `end to end ÷ parse:                          ${(endToEnd / r.parseMs).toFixed(1)}×`,
    `ingest process peak RSS (VmHWM):             ${r.workerPeakRss === undefined ? 'unknown' : `${Math.round(r.workerPeakRss / 1024 / 1024)} MB`}`,
    `reads of its job while it was processed:     ${spread(r.firstPolls)}`,
  ];
  const s = r.second;
  if (s) {
    const answer = s.acceptedStatus === 202 ? '202 {jobId}' : `${s.acceptedStatus || 'no answer'}, not accepted`;
    lines.push(
      '',
      `Second agency (FIA), ${s.rows.toLocaleString('en-US')} rows, sent ${seconds(s.sentAtMs)} after the first upload${s.sentWhileParsing ? ' (its file still being read)' : ''}:`,
      `  ${`upload → ${answer}:`.padEnd(42)}${s.acceptedMs.toFixed(0)} ms`,
      `  reads of its job while the first ran:      ${spread(s.polls.filter((p) => p.duringFirst))}`,
      `  reads of its job in all:                   ${spread(s.polls)}`,
      `  upload → its job done:                     ${seconds(s.jobMs)}  (${s.created.toLocaleString('en-US')} of ${s.rows.toLocaleString('en-US')} created)`,
    );
  }
  lines.push(
    '',
    'Targets on the 2-core machine with the embedded store: end to end ≤ 60 s; worker peak RSS ≤ 600 MB;',
    'a second agency’s upload during the first accepted in ≤ 2 s (issue 37).',
  );
  if (r.notes.length) lines.push('', 'Notes:', ...r.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}
