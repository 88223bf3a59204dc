import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { afterAll, describe, expect, it } from 'vitest';
import { goodRow, startIngest, userOf, workbook } from './harness.ts';

// This file's own instance serves HTTP only: the worker runs in a child process we kill.
const h = await startIngest({ INGEST_WORKER: 'false', INGEST_BATCH_ROWS: '10' });
const bps = userOf('BPS', 'Betty Police');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The ingest service as `npm start` runs it, from source, with only the worker doing anything here. */
function workerProcess(): ChildProcess {
  const config = h.config({ INGEST_WORKER: 'true', INGEST_BATCH_ROWS: '10' });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'services/ingest/src/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      ...testIdentityEnv('ingest'),
      MONGO_URL: config.MONGO_URL,
      MONGO_DB: config.MONGO_DB,
      REDIS_URL: config.REDIS_URL,
      NATS_URL: config.NATS_URL,
      AUDIT_STREAM: config.AUDIT_STREAM,
      AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX,
      RECORDS_URL: config.RECORDS_URL,
      INGEST_QUEUE_PREFIX: config.INGEST_QUEUE_PREFIX,
      INGEST_LOCK_MS: String(config.INGEST_LOCK_MS),
      INGEST_BATCH_ROWS: '10',
      LOG_LEVEL: 'silent',
    },
    stdio: 'ignore',
  });
  return child;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('the worker', () => {
  it('killed with SIGKILL halfway, the job is taken up again and ends with exactly the right records', {
    timeout: 120_000,
  }, async () => {
    const api = await h.as(bps);
    const total = async () =>
      Number((await api.records.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()]);
    const before = await total();
    const rows = Array.from({ length: 600 }, (_, i) =>
      i % 100 === 7 ? goodRow({ 'Case Amount': 'lots' }) : goodRow(),
    );
    const { jobId } = (
      await api.post('/api/records/batch-upload?async=1').attach('file', workbook(rows), 'big.xlsx').expect(202)
    ).body as { jobId: string };

    const child = workerProcess();
    children.push(child);
    let processed = 0;
    await waitUntil(
      'the worker halfway',
      async () => {
        processed = (await api.get(`/api/ingest/jobs/${jobId}`).expect(200)).body.processedRows;
        return processed >= 100;
      },
      60_000,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const atKill = (await api.get(`/api/ingest/jobs/${jobId}`).expect(200)).body;
    expect(atKill.state).toBe('processing');
    expect(atKill.processedRows).toBeLessThan(600);
    const createdAtKill = (await total()) - before;
    expect(createdAtKill).toBeGreaterThan(0);
    expect(createdAtKill).toBeLessThan(594);

    // Another worker (this process) takes the job up once the dead one's lock lapses.
    await h.start({ INGEST_WORKER: 'true' });
    let job: { state: string; result?: { successfulRecords: number; errors: unknown[] } } = { state: '' };
    await waitUntil(
      'the job finished by the new worker',
      async () => {
        job = (await api.get(`/api/ingest/jobs/${jobId}`).expect(200)).body;
        return job.state === 'completed';
      },
      90_000,
    );
    expect(job.result?.successfulRecords).toBe(594);
    expect(job.result?.errors).toHaveLength(6);
    expect(await total()).toBe(before + 594);
    // The upload's completion is recorded once, by the worker that finished it, naming every record
    // the upload created (those of the killed worker too).
    const completed = (await h.auditEvents()).filter(
      (e) => e.service === 'ingest' && e.detail?.what === 'completed' && e.detail.jobId === jobId,
    );
    expect(completed).toHaveLength(1);
    expect(completed[0]?.recordIds).toHaveLength(594);
    expect(completed[0]?.detail).toMatchObject({ rows: 600, created: 594, invalid: 6, duplicates: 0 });
  });
});
