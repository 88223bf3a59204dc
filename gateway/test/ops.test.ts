import { OperationsSchema, QUEUES_BOARD_PATH } from '@nrad/contracts';
import { waitUntil } from '@nrad/infra/harness';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, nextIp, signIn, startAuthStack } from './stack.ts';

/** The operations console's JSON and the queue board, through the gateway with real sessions. */
let stack: Awaited<ReturnType<typeof startAuthStack>>;
let gw: ReturnType<typeof stack.gateway>;
let admin: request.Agent;

beforeAll(async () => {
  stack = await startAuthStack();
  gw = stack.gateway();
  admin = request.agent(gw.server);
  await admin.post('/api/auth/login').set('x-forwarded-for', nextIp()).send(ADMIN).expect(200);
});

const operations = async () => OperationsSchema.parse((await admin.get('/api/admin/operations').expect(200)).body);

const body = (n: number) => ({
  incidentNumber: `OPS-${Date.now().toString(36)}-${n}`,
  suspectName: `Ops Subject ${n}`,
  suspectDob: '1980-01-02',
  incidentDate: '2024-03-04',
  caseAmount: '100',
  sourceOfRecord: 'Police Investigation',
  internationalNexus: false,
});

describe('GET /api/admin/operations', () => {
  it('shows every service ready with its build, the queues, and the streams and consumers of this system', async () => {
    const ops = await operations();
    expect(ops.problems).toEqual([]);
    expect(ops.alerts).toEqual([]); // no one refused yet (gateway/test/user-limits.test.ts raises some)
    expect(ops.services.map((s) => s.name).sort()).toEqual([
      'audit',
      'auth',
      'ingest',
      'linking',
      'records',
      'report',
      'stats',
    ]);
    for (const s of ops.services) {
      expect(s, s.name).toMatchObject({ ready: true, version: 'source' });
      expect(
        Object.values(s.checks).every((c) => c === 'up'),
        s.name,
      ).toBe(true);
    }
    expect(ops.queues.map((q) => q.name)).toEqual(stack.opsConfig.OPS_QUEUES);
    const streams = ops.streams.map((s) => s.name);
    expect(streams).toContain(stack.recordsStream);
    expect(streams).toContain(stack.linksStream);
    // Linking and stats consume records.*; records consumes links.created.
    const consumersOfRecords = ops.consumers.filter((c) => c.stream === stack.recordsStream);
    expect(consumersOfRecords.length).toBeGreaterThanOrEqual(2);
  });

  it('follows the stream as records are created: messages and the last sequence grow, consumers catch up', async () => {
    const before = (await operations()).streams.find((s) => s.name === stack.recordsStream);
    const police = await signIn(gw.server, { organization: 'BPS' });
    await police.agent.post('/api/records').send(body(1)).expect(201);
    await police.agent.post('/api/records').send(body(2)).expect(201);
    await waitUntil('both events in the stream and every consumer caught up', async () => {
      const ops = await operations();
      const stream = ops.streams.find((s) => s.name === stack.recordsStream);
      const consumers = ops.consumers.filter((c) => c.stream === stack.recordsStream);
      return (
        stream !== undefined &&
        stream.lastSeq >= (before?.lastSeq ?? 0) + 2 &&
        consumers.every((c) => c.pending === 0 && c.ackPending === 0 && c.lastDelivery.streamSeq === stream.lastSeq)
      );
    });
    const ops = await operations();
    for (const c of ops.consumers.filter((x) => x.stream === stack.recordsStream)) {
      expect(c.lastDelivery.at, c.name).not.toBeNull();
      expect(c.waiting, `${c.name} has a pull waiting`).toBeGreaterThan(0);
    }
  });

  it('shows the stats consumer falling behind while stats is down, and catching up once it is back', async () => {
    const police = await signIn(gw.server, { organization: 'BPS' });
    const statsConsumer = (ops: Awaited<ReturnType<typeof operations>>) =>
      ops.consumers.find((c) => c.stream === stack.recordsStream && c.name.includes('stats'));
    expect(statsConsumer(await operations())).toBeDefined();
    await stack.stopStats();
    try {
      for (const n of [11, 12, 13]) await police.agent.post('/api/records').send(body(n)).expect(201);
      await waitUntil(
        'three events pending for stats',
        async () => (statsConsumer(await operations())?.pending ?? 0) >= 3,
      );
      const down = await operations();
      expect(down.services.find((s) => s.name === 'stats')).toMatchObject({ ready: false, version: null });
      expect(down.problems).toContain('The stats service is not ready.');
    } finally {
      await stack.startStats();
    }
    await waitUntil('stats caught up', async () => {
      const c = statsConsumer(await operations());
      return c?.pending === 0 && c.ackPending === 0;
    });
    expect((await operations()).problems).toEqual([]);
  });

  it('is 403 for every agency and 401 without a session', async () => {
    for (const organization of ['BPS', 'FIA', 'CUS']) {
      const user = await signIn(gw.server, { organization });
      const res = await user.agent.get('/api/admin/operations').expect(403);
      expect(res.body.message).toBe('Admin privileges required');
    }
    await request(gw.server).get('/api/admin/operations').expect(401);
  });
});

describe('the queue board (bull-board)', () => {
  let queue: Queue;
  let connection: Redis;
  beforeAll(() => {
    connection = new Redis(stack.t.redisUrl, { maxRetriesPerRequest: null });
    queue = new Queue(stack.opsConfig.OPS_QUEUES[0] as string, {
      connection,
      prefix: stack.opsConfig.OPS_QUEUE_PREFIX,
    });
  });
  afterAll(async () => {
    await queue.close();
    connection.disconnect();
  });

  it('serves its page and its API to ADMIN only', async () => {
    const page = await admin.get(`${QUEUES_BOARD_PATH}/`).expect(200);
    expect(page.text).toContain('<title>NRAD queues</title>');
    expect(page.text).toContain(`<base href="${QUEUES_BOARD_PATH}/"`);
    const api = await admin.get(`${QUEUES_BOARD_PATH}/api/queues`).expect(200);
    expect(api.body.queues.map((q: { name: string }) => q.name).sort()).toEqual([...stack.opsConfig.OPS_QUEUES].sort());
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    await admin.get(`${QUEUES_BOARD_PATH}/${script}`).expect(200);

    const customs = await signIn(gw.server, { organization: 'CUS' });
    const denied = await customs.agent.get(`${QUEUES_BOARD_PATH}/`).expect(403);
    expect(denied.body.message).toBe('Access denied. Admin privileges required.');
    await customs.agent.get(`${QUEUES_BOARD_PATH}/api/queues`).expect(403);
    await request(gw.server).get(`${QUEUES_BOARD_PATH}/api/queues`).expect(401);
  });

  it('shows a failed ingest job with its reason in the JSON and the board, retries it and removes it', async () => {
    const jobId = `ops-test-${Date.now()}`;
    await queue.add(
      'upload',
      { uploadId: `missing-${jobId}`, fileKey: 'none', uploader: { userId: 'x' } },
      { jobId, attempts: 1 },
    );
    await waitUntil('the job failed', async () => (await queue.getJobState(jobId)) === 'failed');
    const ops = await operations();
    const mine = ops.queues.find((q) => q.name === queue.name);
    expect(mine?.failed).toBeGreaterThanOrEqual(1);
    expect(mine?.recentFailures.find((f) => f.id === jobId)).toMatchObject({
      name: 'upload',
      reason: `upload missing-${jobId} is not stored`,
      attemptsMade: 1,
    });

    const listed = await admin
      .get(`${QUEUES_BOARD_PATH}/api/queues?activeQueue=${queue.name}&status=failed`)
      .expect(200);
    const board = listed.body.queues.find((q: { name: string }) => q.name === queue.name);
    expect(board.jobs.map((j: { id: string }) => j.id)).toContain(jobId);

    // A write from another site is refused before it reaches the board.
    await admin
      .put(`${QUEUES_BOARD_PATH}/api/queues/${queue.name}/${jobId}/retry`)
      .set('origin', 'https://evil.example')
      .expect(403);
    expect(await queue.getJobState(jobId)).toBe('failed');
    const retried = await admin.put(`${QUEUES_BOARD_PATH}/api/queues/${queue.name}/${jobId}/retry`);
    expect(retried.status, retried.text).toBe(204);
    await waitUntil('retried: run again and failed again', async () => {
      const job = await queue.getJob(jobId);
      return (await job?.getState()) === 'failed' && (job?.attemptsMade ?? 0) >= 2;
    });

    // Adding a job by hand is turned off (a job says whose upload it is).
    const add = await admin
      .post(`${QUEUES_BOARD_PATH}/api/queues/${queue.name}/add`)
      .send({ name: 'upload', data: { uploadId: 'typed-in' } })
      .expect(403);
    expect(add.body.message).toBe('This action is turned off on the NRAD queue board');
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
    // Only the listed actions reach the board, in any letter case (bull-board's router ignores it):
    // the refused ones in another case are refused too, and so is what the board offers besides.
    const refused: Array<[method: 'post' | 'put' | 'patch', path: string]> = [
      ['post', `/api/queues/${queue.name}/ADD`],
      ['put', `/api/queues/${queue.name}/EMPTY`],
      ['put', `/api/queues/${queue.name}/Empty`],
      ['put', `/api/queues/${queue.name}/Obliterate`],
      ['put', `/api/queues/${queue.name}/obliterate`],
      ['patch', `/api/queues/${queue.name}/${jobId}/UPDATE-DATA`],
      ['patch', `/api/queues/${queue.name}/${jobId}/delay`],
      ['put', `/api/queues/${queue.name}/concurrency`],
      ['put', `/api/queues/${queue.name}/rate-limit`],
      ['post', '/api/metrics/history/purge'],
      ['post', `/api/queues/${queue.name}/${jobId}/retry`],
    ];
    for (const [method, path] of refused) {
      const res = await admin[method](`${QUEUES_BOARD_PATH}${path}`).send({ name: 'upload', data: {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toBe('This action is turned off on the NRAD queue board');
    }
    expect(await queue.getJob(jobId)).toBeDefined();
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 0, delayed: 0 });
    // An allowed action in capitals is the same action: the job is retried.
    const before = (await queue.getJob(jobId))?.attemptsMade ?? 0;
    await admin.put(`${QUEUES_BOARD_PATH}/api/queues/${queue.name}/${jobId}/RETRY`).expect(204);
    await waitUntil('retried in capitals', async () => {
      const job = await queue.getJob(jobId);
      return (await job?.getState()) === 'failed' && (job?.attemptsMade ?? 0) > before;
    });

    // bull-board calls removing one job "clean".
    await admin.put(`${QUEUES_BOARD_PATH}/api/queues/${queue.name}/${jobId}/clean`).expect(204);
    expect(await queue.getJob(jobId)).toBeUndefined();
  });
});
