import { randomBytes } from 'node:crypto';
import { Scope } from '@nrad/service-kit';
import { testGrant } from '@nrad/service-kit/test-identity';
import { describe, expect, it } from 'vitest';
import { fileGoneMessage, NO_GRANT_MESSAGE, processUpload } from '../src/use-cases/uploads.ts';
import { goodRow, startIngest, userOf, workbook } from './harness.ts';

/**
 * Issue 37: each agency's limits on uploads (429 with a message, recorded as `rate.limited`), and
 * uploaded files kept only until their job ends (INGEST_KEEP_HOURS for a retry). This instance runs
 * no worker, so that its jobs stay queued.
 */
const h = await startIngest({ INGEST_WORKER: 'false', INGEST_MAX_QUEUED_JOBS: '2', INGEST_MAX_MB_PER_DAY: '1' });
const MB = 1024 * 1024;

/** A valid workbook of about 0.6 MB (text that does not compress). */
function largeFile(): Buffer {
  const rows = Array.from({ length: 330 }, () =>
    goodRow({ 'Additional Information': randomBytes(1000).toString('base64') }),
  );
  const file = workbook(rows);
  expect(file.length).toBeGreaterThan(0.5 * MB);
  expect(file.length).toBeLessThan(0.75 * MB);
  return file;
}

describe('an agency’s limits on uploads (issue 37)', () => {
  it('refuses a job beyond the agency’s queued jobs with 429 and a message; another agency is unaffected', async () => {
    const bps = userOf('BPS', 'Betty Police');
    const api = await h.as(bps);
    const send = () => api.post('/api/records/batch-upload?async=1').attach('file', workbook([goodRow()]), 'one.xlsx');
    expect((await send()).status).toBe(202);
    expect((await send()).status).toBe(202);
    const refused = await send().expect(429);
    expect(refused.body).toEqual({
      code: 'RATE_LIMITED',
      message:
        'Your agency already has 2 uploads waiting or being processed, the most it may have at once. Try again when one of them has finished.',
    });
    expect(refused.headers['retry-after']).toBeUndefined();
    // Another agency's upload is taken.
    await (await h.as(userOf('FIA')))
      .post('/api/records/batch-upload?async=1')
      .attach('file', workbook([goodRow()]), 'one.xlsx')
      .expect(202);
    // Recorded as the gateway's and the records service's limits are.
    const events = (await h.auditEvents()).filter((e) => e.service === 'ingest' && e.action === 'rate.limited');
    expect(events).toEqual([
      expect.objectContaining({
        userId: bps.userId,
        organization: 'BPS',
        recordIds: [],
        detail: { category: 'upload-jobs', limit: 2 },
      }),
    ]);
  });

  it('refuses a file that would take the agency over its bytes of the last 24 hours, saying when to try again', async () => {
    const cus = userOf('CUS', 'Cora Customs');
    const api = await h.as(cus);
    const first = largeFile();
    await api.post('/api/records/batch-upload?async=1').attach('file', first, 'a.xlsx').expect(202);
    const second = largeFile();
    const refused = await api.post('/api/records/batch-upload?async=1').attach('file', second, 'b.xlsx').expect(429);
    const mb = (n: number) => `${Number((n / MB).toFixed(1))} MB`;
    expect(refused.body.message).toMatch(
      new RegExp(
        `^Your agency has uploaded ${mb(first.length)} in the last 24 hours; this file \\(${mb(second.length)}\\) would take it over its limit of 1 MB a day\\. Try again after \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.$`,
      ),
    );
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(24 * 3600 - 120);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    // A small file still fits.
    await api
      .post('/api/records/batch-upload?async=1')
      .attach('file', workbook([goodRow()]), 'c.xlsx')
      .expect(202);
    const events = (await h.auditEvents()).filter(
      (e) => e.action === 'rate.limited' && e.detail?.category === 'upload-bytes',
    );
    expect(events).toEqual([
      expect.objectContaining({
        userId: cus.userId,
        detail: { category: 'upload-bytes', limitMb: 1, usedBytes: first.length, size: second.length, retryAfter },
      }),
    ]);
  });
});

describe('uploaded files kept only for a retry (issue 37)', () => {
  const { store } = h.main.deps;
  const system = Scope.system('test: the sweep of every agency');
  /** Uploads a one-row file as `api`'s user and answers its job's id (queued: this instance runs no worker). */
  const queued = async (api: Awaited<ReturnType<typeof h.as>>, name: string) =>
    (
      await api
        .post('/api/records/batch-upload?async=1')
        .attach('file', workbook([goodRow()]), name)
        .expect(202)
    ).body.jobId as string;

  it('a job that ends deletes its file; one run after the file is gone says to upload again', async () => {
    const fia = userOf('FIA', 'Fiona Files');
    const api = await h.as(fia);
    const jobId = await queued(api, 'f.xlsx');
    expect(await store.chunks.countDocuments({ uploadId: jobId })).toBe(1);
    const data = { uploadId: jobId, fileKey: jobId, uploader: fia, grant: await testGrant(fia, 'ingest') };
    expect(await processUpload(h.main.deps, data)).toMatchObject({ success: true, successfulRecords: 1 });
    expect(await store.chunks.countDocuments({ uploadId: jobId })).toBe(0);
    expect((await store.uploads.findById(jobId).lean())?.fileDeletedAt).toBeInstanceOf(Date);
    // Its SHA-256 stays: what was uploaded.
    expect((await store.uploads.findById(jobId).lean())?.sha256).toMatch(/^[0-9a-f]{64}$/);

    // A job whose file was deleted after its keeping time (failed, then retried from the queue board).
    const late = await queued(api, 'g.xlsx');
    await store.progress(Scope.of(fia), late, { state: 'failed' });
    await store.sweep(system, new Date(Date.now() + 1000));
    const result = await processUpload(h.main.deps, {
      uploadId: late,
      fileKey: late,
      uploader: fia,
      grant: await testGrant(fia, 'ingest'),
    });
    expect(result).toEqual({
      success: false,
      totalRecords: 0,
      successfulRecords: 0,
      errors: [],
      message: fileGoneMessage(24),
    });
    expect(fileGoneMessage(24)).toBe(
      'The uploaded file is no longer kept (files are kept 24 hours for a retry); upload it again.',
    );
  });

  it('a job without the gateway’s grant creates nothing and says to upload again (issue 37)', async () => {
    const cus = userOf('CUS', 'Cora Grantless');
    const api = await h.as(cus);
    const jobId = await queued(api, 'h.xlsx');
    // As a job queued before grants were kept: the records service would refuse it without one.
    const result = await processUpload(h.main.deps, { uploadId: jobId, fileKey: jobId, uploader: cus });
    expect(result).toEqual({
      success: false,
      totalRecords: 0,
      successfulRecords: 0,
      errors: [],
      message: NO_GRANT_MESSAGE,
    });
    expect(NO_GRANT_MESSAGE).toBe(
      'The upload could not be processed: it came without the permission to create records on your behalf; upload it again.',
    );
    expect(await store.chunks.countDocuments({ uploadId: jobId })).toBe(0);
  });

  it('the sweep keeps a file for its keeping time, then deletes it and fails a job that never ended', async () => {
    const bps = userOf('BPS', 'Sweep Police');
    const scope = Scope.of(bps);
    const upload = (id: string, state: 'queued' | 'completed') =>
      store.create(
        scope,
        {
          _id: id,
          organization: 'BPS',
          uploader: bps,
          fileName: 'x.xlsx',
          kind: 'xlsx',
          size: 3,
          state,
          processedRows: 0,
          totalRows: 0,
        },
        new Uint8Array([1, 2, 3]),
      );
    const tag = Date.now().toString(36);
    await upload(`${tag}-stuck`, 'queued');
    await upload(`${tag}-done`, 'completed');
    // An ended job's file left behind (a crash between its end and its deletion) goes at once.
    expect(await store.sweep(scope, new Date(Date.now() - 3600_000))).toMatchObject({ deleted: 1, abandoned: 0 });
    expect(await store.chunks.countDocuments({ uploadId: `${tag}-done` })).toBe(0);
    expect(await store.chunks.countDocuments({ uploadId: `${tag}-stuck` })).toBe(1);
    // Past the keeping time, a job that never ended is failed and its file deleted.
    expect(await store.sweep(scope, new Date(Date.now() + 1000))).toMatchObject({ deleted: 1, abandoned: 1 });
    expect(await store.chunks.countDocuments({ uploadId: `${tag}-stuck` })).toBe(0);
    expect((await store.uploads.findById(`${tag}-stuck`).lean())?.state).toBe('failed');
    // Chunks of no upload (a crash between storing a file and its upload), stored before the time.
    await store.chunks.create({ uploadId: `${tag}-orphan`, n: 0, data: Buffer.from([1]), createdAt: new Date(0) });
    expect((await store.sweep(system, new Date())).orphans).toBe(1);
    expect(await store.chunks.countDocuments({ uploadId: `${tag}-orphan` })).toBe(0);
  });
});
