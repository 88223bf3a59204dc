import { IDENTITY_HEADER, RecordInputSchema, TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { Scope } from '@nrad/service-kit';
import { testOnBehalfToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { newRecordDoc } from '../src/data/records.ts';
import { recordBody, startRecords, userOf } from './harness.ts';

/**
 * The lists' totals (X-Total-Count) are kept between pages (LIST_TOTAL_TTL_MS) instead of counted
 * for every page: this instance's own changes move them at once, another instance's show once
 * the time is up.
 */
describe('list totals', () => {
  it('follow this instance’s creates, deletes, restores and imports without counting again', async () => {
    const h = await startRecords({ listTotalTtlMs: 60_000 });
    const bps = userOf('BPS');
    const admin = { ...userOf('ADMIN'), role: 'Admin' as const };
    const api = await h.as(bps);
    const adminApi = await h.as(admin);
    const total = async (a: typeof api, path: string) =>
      Number((await a.get(path).expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()]);
    const first = [await api.post('/api/records').send(recordBody()).expect(201)];
    const active0 = await total(api, '/api/records?limit=1');
    const deleted0 = await total(api, '/api/records/deleted?limit=1');
    const all0 = await total(adminApi, '/api/admin/records?limit=1');

    const repository = h.built.deps.records;
    const count = repository.count.bind(repository);
    let counted = 0;
    repository.count = async (scope, criteria) => {
      counted++;
      return count(scope, criteria);
    };
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    await api.post('/api/records').send(recordBody()).expect(201);
    await api.delete(`/api/records/${created.id}`).expect(200);
    expect(await total(api, '/api/records?limit=1')).toBe(active0 + 1);
    expect(await total(api, '/api/records/deleted?limit=1')).toBe(deleted0 + 1);
    // ADMIN restores it: the record's organization is known only once it is read.
    await adminApi.post(`/api/records/${created.id}/restore`).expect(200);
    expect(await total(api, '/api/records?limit=1')).toBe(active0 + 2);
    expect(await total(api, '/api/records/deleted?limit=1')).toBe(deleted0);
    const token = await testOnBehalfToken(bps, 'ingest');
    const upload = `totals-${Date.now()}`;
    await request(h.server)
      .post('/internal/records/import')
      .set(IDENTITY_HEADER, token)
      .send({ owner: bps, items: [2, 3, 4].map((row) => ({ key: `${upload}:${row}`, body: recordBody() })) })
      .expect(200);
    expect(await total(api, '/api/records?limit=1')).toBe(active0 + 5);
    expect(await total(adminApi, '/api/admin/records?limit=1')).toBe(all0 + 5);
    // Refused changes move nothing.
    await api
      .post('/api/records')
      .send(recordBody({ incidentNumber: first[0]?.body.incidentNumber }))
      .expect(409);
    expect(await total(api, '/api/records?limit=1')).toBe(active0 + 5);
    expect(counted).toBe(0);
    // What the store holds agrees.
    repository.count = count;
    expect(await count(Scope.agency('BPS'), { deleted: false })).toBe(active0 + 5);
  });

  it('show another instance’s changes once their time is up and they are counted again', async () => {
    const h = await startRecords({ listTotalTtlMs: 400 });
    const fia = userOf('FIA');
    const api = await h.as(fia);
    await api.post('/api/records').send(recordBody()).expect(201);
    const total = async () =>
      Number((await api.get('/api/records?limit=1').expect(200)).headers[TOTAL_COUNT_HEADER.toLowerCase()]);
    const before = await total();
    // Another instance creates one (here: written to the store directly).
    const doc = newRecordDoc(RecordInputSchema.parse(recordBody()), { organization: 'FIA', createdById: fia.userId });
    await h.built.deps.records.insert(Scope.agency('FIA'), doc);
    expect(await total()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Past its time the kept total is answered while it is counted again in the background; the
    // lists after the count show it.
    expect(await total()).toBe(before);
    await expect.poll(total, { timeout: 2000, interval: 20 }).toBe(before + 1);
  });
});
