import { waitUntil } from '@nrad/infra/harness';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import * as XLSX from 'xlsx';
import { signIn, startAuthStack } from './stack.ts';

/** Batch upload through the gateway: its paths go to the ingest service, not to records' `/api/records/{id}`. */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
});

describe('batch upload through the gateway', () => {
  it('serves the template, takes the filled-in file as a multipart upload and answers its job to the agency only', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const template = await police.agent.get('/api/records/template').responseType('blob').expect(200);
    expect(template.headers['content-disposition']).toBe('attachment; filename="nrad-records-template.xlsx"');

    const wb = XLSX.read(template.body as Buffer, { type: 'buffer' });
    const sheet = wb.Sheets[wb.SheetNames[0] as string] as XLSX.WorkSheet;
    const [header, example] = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true }) as unknown[][];
    const incident = (header as string[]).indexOf('Incident Number');
    const rows = [1, 2].map((i) =>
      (example as unknown[]).map((v, c) => (c === incident ? `GW-${Date.now()}-${i}` : v)),
    );
    const filled = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(filled, XLSX.utils.aoa_to_sheet([header as unknown[], ...rows]), 'Records');
    const file = XLSX.write(filled, { type: 'buffer', bookType: 'xlsx' }) as Buffer;

    const accepted = await police.agent
      .post('/api/records/batch-upload?async=1')
      .attach('file', file, 'mine.xlsx')
      .expect(202);
    const { jobId } = accepted.body as { jobId: string };
    let job = { state: '', result: undefined as unknown };
    await waitUntil(
      'the upload done',
      async () => {
        job = (await police.agent.get(`/api/ingest/jobs/${jobId}`).expect(200)).body;
        return job.state === 'completed';
      },
      30_000,
    );
    expect(job.result).toEqual({ success: true, totalRecords: 2, successfulRecords: 2, errors: [] });
    const customs = await signIn(gw.server, { organization: 'CUS' });
    await customs.agent.get(`/api/ingest/jobs/${jobId}`).expect(404);
    await request(gw.server).get('/api/records/template').expect(401);
  });
  it('passes an agency’s 429 for its upload limits through unchanged (issue 37)', async () => {
    const customs = await signIn(gw.server, { organization: 'CUS' });
    const rows = [
      ['Incident Number', 'Suspect Name', 'Suspect Date of Birth', 'Incident Date', 'Case Amount'],
      ['GW-LIMIT-1', 'Ann Lee', '1980-01-01', '2020-01-01', 1],
    ];
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), 'Records');
    const file = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    // Sent at once: the ingest service takes 3 of an agency's uploads waiting or under way (its
    // default), and the first job is not done before the others are checked.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        customs.agent.post('/api/records/batch-upload?async=1').attach('file', file, 'limits.xlsx'),
      ),
    );
    expect(answers.map((a) => a.status).filter((status) => status !== 202 && status !== 429)).toEqual([]);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body).toEqual({
        code: 'RATE_LIMITED',
        message:
          'Your agency already has 3 uploads waiting or being processed, the most it may have at once. Try again when one of them has finished.',
      });
    }
  });
});
