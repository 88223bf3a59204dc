import { ERROR_CODES, IDENTITY_HEADER, type RecordImportPlan, type UserIdentity } from '@nrad/contracts';
import { testOnBehalfToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

// Incident numbers as an oracle (issue 34, docs/adr/0015): 3 numbers of other agencies per user
// and hour, then 429 for every create, edit of the number and upload of that user.
const LIMIT = 3;
const h = await startRecords({
  overrides: { INCIDENT_PROBE_LIMIT: String(LIMIT), INCIDENT_PROBE_WINDOW_MINUTES: '60' },
});

/** Records of `user`'s agency: their incident numbers. */
async function numbersOf(user: UserIdentity, n: number): Promise<string[]> {
  const api = await h.as(user);
  const numbers: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = recordBody();
    await api.post('/api/records').send(body).expect(201);
    numbers.push(body.incidentNumber);
  }
  return numbers;
}

/** The user's records found by an incident number (their own agency's only). */
async function found(user: UserIdentity, incidentNumber: string): Promise<number> {
  const api = await h.as(user);
  return (await api.post('/api/records/search').send({ incidentNumber }).expect(200)).body.length;
}

function expectSpent(res: request.Response) {
  expect(res.status).toBe(429);
  expect(res.body.code).toBe(ERROR_CODES.rateLimited);
  expect(res.body.message).toMatch(
    /^Too many incident numbers already used by other agencies\. Try again after (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC\.$/,
  );
  const wait = Number(res.headers['retry-after']);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(3600);
}

async function planAs(owner: UserIdentity, uploadId: string, rows: Array<{ row: number; incidentNumber: string }>) {
  const token = await testOnBehalfToken(owner, 'ingest');
  const res = await request(h.server)
    .post('/internal/records/import-plan')
    .set(IDENTITY_HEADER, token)
    .send({ owner, uploadId, rows })
    .expect(200);
  return res.body as RecordImportPlan;
}

describe('creates and edits whose incident number another agency holds', () => {
  it('answer 409 up to the budget, then 429 with Retry-After for every create or edit of the number', async () => {
    const fia = userOf('FIA', 'Fiona Holder');
    const prober = userOf('BPS', 'Percy Prober');
    const theirs = await numbersOf(fia, LIMIT + 2);
    const api = await h.as(prober);
    const own = recordBody();
    const mine = (await api.post('/api/records').send(own).expect(201)).body as { id: string; version: number };

    for (const number of theirs.slice(0, LIMIT)) {
      const res = await api
        .post('/api/records')
        .send(recordBody({ incidentNumber: number }))
        .expect(409);
      expect(res.body).toEqual({ message: 'Incident number already exists', code: ERROR_CODES.incidentNumberTaken });
    }
    // Spent: a number another agency holds, a free one and an edit to a free one get the same 429.
    expectSpent(await api.post('/api/records').send(recordBody({ incidentNumber: theirs[LIMIT] })));
    const free = recordBody();
    expectSpent(await api.post('/api/records').send(free));
    expect(await found(prober, free.incidentNumber)).toBe(0);
    const renumbered = { ...own, incidentNumber: recordBody().incidentNumber };
    expectSpent(await api.put(`/api/records/${mine.id}`).send(renumbered));
    // An edit that keeps the number is no probe: it goes through.
    await api
      .put(`/api/records/${mine.id}`)
      .send({ ...own, suspectName: 'John Smyth' })
      .expect(200);

    // The trail names the user and the count, never the other agency's records.
    const events = (await h.settledAudit()).filter((e) => e.userId === prober.userId);
    const probes = events.filter((e) => e.action === 'access.refused');
    expect(probes.map((e) => e.detail?.count)).toEqual([1, 2, 3]);
    for (const e of probes) {
      expect(e.recordIds).toEqual([]);
      expect(e.detail).toMatchObject({ status: 409, what: 'create', limit: LIMIT, windowMinutes: 60 });
    }
    const limited = events.filter((e) => e.action === 'rate.limited');
    expect(limited.map((e) => e.detail?.what)).toEqual(['create', 'create', 'edit']);
    for (const e of limited) {
      expect(e.recordIds).toEqual([]);
      expect(e.detail).toMatchObject({ category: 'incident-numbers', limit: LIMIT });
    }
  });

  it('edits into another agency’s number count as creates do', async () => {
    const cus = userOf('CUS', 'Carl Holder');
    const prober = userOf('FIA', 'Edith Editor');
    const theirs = await numbersOf(cus, LIMIT + 1);
    const api = await h.as(prober);
    const own = recordBody();
    const mine = (await api.post('/api/records').send(own).expect(201)).body as { id: string };
    for (const number of theirs.slice(0, LIMIT)) {
      await api
        .put(`/api/records/${mine.id}`)
        .send({ ...own, incidentNumber: number })
        .expect(409);
    }
    expectSpent(await api.put(`/api/records/${mine.id}`).send({ ...own, incidentNumber: theirs[LIMIT] }));
    expectSpent(await api.post('/api/records').send(recordBody()));
  });

  it('collisions with the caller’s own agency’s numbers, and ADMIN’s, do not count', async () => {
    const colleague = userOf('BPS', 'Colin Colleague');
    const officer = userOf('BPS', 'Olive Officer');
    const ours = await numbersOf(colleague, 2);
    const api = await h.as(officer);
    const own = recordBody();
    const mine = (await api.post('/api/records').send(own).expect(201)).body as { id: string };
    for (let i = 0; i < LIMIT + 2; i++) {
      await api
        .post('/api/records')
        .send(recordBody({ incidentNumber: ours[i % 2] }))
        .expect(409);
      await api
        .put(`/api/records/${mine.id}`)
        .send({ ...own, incidentNumber: ours[i % 2] })
        .expect(409);
    }
    await api.post('/api/records').send(recordBody()).expect(201);

    // ADMIN sees every record: its collisions are no disclosure.
    const admin = await h.as(userOf('ADMIN', 'Ada Admin'));
    for (let i = 0; i < LIMIT + 2; i++) {
      await admin
        .post('/api/records')
        .send(recordBody({ incidentNumber: ours[0] }))
        .expect(409);
    }
    await admin.post('/api/records').send(recordBody()).expect(201);
  });

  it('another user is unaffected by a user whose budget is spent', async () => {
    const fia = userOf('FIA', 'Fay Holder');
    const spender = userOf('CUS', 'Sam Spender');
    const bystander = userOf('CUS', 'Bea Bystander');
    const theirs = await numbersOf(fia, LIMIT + 1);
    const api = await h.as(spender);
    for (const number of theirs.slice(0, LIMIT)) {
      await api
        .post('/api/records')
        .send(recordBody({ incidentNumber: number }))
        .expect(409);
    }
    expectSpent(await api.post('/api/records').send(recordBody()));
    // Kept in Redis, not in the process: a restarted service (or another instance) counts the same.
    await h.restart();
    expectSpent(await api.post('/api/records').send(recordBody()));
    const other = await h.as(bystander);
    await other.post('/api/records').send(recordBody()).expect(201);
    await other
      .post('/api/records')
      .send(recordBody({ incidentNumber: theirs[0] }))
      .expect(409);
  });

  it('creates sent at once get no more 409s for other agencies’ numbers than the budget has room for', async () => {
    const cus = userOf('CUS', 'Cora Holder');
    const prober = userOf('BPS', 'Rita Racer');
    const theirs = await numbersOf(cus, 12);
    const api = await h.as(prober);
    const answers = await Promise.all(
      theirs.map((n) => api.post('/api/records').send(recordBody({ incidentNumber: n }))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 409).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((s) => s !== 409 && s !== 429)).toEqual([]);
    // Whatever the order they ran in, the budget is spent now.
    const remaining = LIMIT - statuses.filter((s) => s === 409).length;
    for (let i = 0; i < remaining; i++) {
      await api
        .post('/api/records')
        .send(recordBody({ incidentNumber: theirs[i] }))
        .expect(409);
    }
    expectSpent(await api.post('/api/records').send(recordBody()));
  });
});

describe('an upload’s plan (the ingest worker asks it before any row is imported)', () => {
  it('counts the rows whose number another agency holds and stops after the one that spends the budget', async () => {
    const fia = userOf('FIA', 'Flo Holder');
    const uploader = userOf('BPS', 'Ulla Uploader');
    const theirs = await numbersOf(fia, LIMIT + 2);
    const ours = await numbersOf(userOf('BPS', 'Bob Colleague'), 1);
    const fresh = () => recordBody().incidentNumber;
    // Rows 2..: free, ours (no probe), theirs ×2, free, theirs (spends the budget), free, theirs, free.
    const numbers = [fresh(), ours[0], theirs[0], theirs[1], fresh(), theirs[2], fresh(), theirs[3], fresh()];
    const rows = numbers.map((incidentNumber, i) => ({ row: i + 2, incidentNumber: incidentNumber as string }));
    const plan = await planAs(uploader, 'upload-1', rows);
    expect(plan.stopAt).toBe(8);
    expect(Date.parse(plan.retryAt as string)).toBeGreaterThan(Date.now());

    // Asked again (a retried job): the same plan, counted once — a single create still has no room.
    expect(await planAs(uploader, 'upload-1', rows)).toEqual(plan);
    const api = await h.as(uploader);
    expectSpent(await api.post('/api/records').send(recordBody()));
    // A later upload of the user stops at its first row, whatever it holds.
    expect(await planAs(uploader, 'upload-2', [{ row: 5, incidentNumber: fresh() }])).toMatchObject({ stopAt: 5 });

    const events = (await h.settledAudit()).filter((e) => e.userId === uploader.userId);
    const counted = events.filter((e) => e.action === 'access.refused');
    expect(counted.map((e) => e.detail)).toEqual([
      expect.objectContaining({ what: 'upload', jobId: 'upload-1', rows: LIMIT, count: LIMIT, limit: LIMIT }),
    ]);
    expect(counted[0]?.recordIds).toEqual([]);
    const limited = events.filter((e) => e.action === 'rate.limited');
    expect(limited.map((e) => [e.detail?.what, e.detail?.jobId, e.detail?.stoppedAtRow])).toEqual([
      ['upload', 'upload-1', 8],
      ['create', undefined, undefined],
      ['upload', 'upload-2', 5],
    ]);
  });

  it('an upload with fewer such rows than the budget stops nowhere; own-agency and ADMIN’s uploads never', async () => {
    const cus = userOf('CUS', 'Cid Holder');
    const uploader = userOf('FIA', 'Una Uploader');
    const theirs = await numbersOf(cus, LIMIT);
    const fresh = () => recordBody().incidentNumber;
    const rows = [theirs[0], fresh(), theirs[1], fresh()].map((n, i) => ({ row: i + 2, incidentNumber: n as string }));
    expect(await planAs(uploader, 'u-a', rows)).toEqual({});
    // One number left in the budget: the next such row spends it, and the upload stops after it.
    const next = [fresh(), theirs[2], fresh()].map((n, i) => ({ row: i + 2, incidentNumber: n as string }));
    expect(await planAs(uploader, 'u-b', next)).toMatchObject({ stopAt: 4 });

    const colleague = userOf('CUS', 'Cy Colleague');
    const own = theirs.map((n, i) => ({ row: i + 2, incidentNumber: n as string }));
    expect(await planAs(colleague, 'u-c', [...own, ...own.map((r) => ({ ...r, row: r.row + 10 }))])).toEqual({});
    expect(await planAs(userOf('ADMIN', 'Ada'), 'u-d', own)).toEqual({});
  });
});
