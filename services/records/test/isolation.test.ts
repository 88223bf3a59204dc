import { IDENTITY_HEADER } from '@nrad/contracts';
import { newIdentityKeyPair, parseSigner, signIdentity } from '@nrad/service-kit';
import { testToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

/**
 * Agency isolation, enforced by the records service itself: every path × every organization × a
 * record of each organization. Another agency's record answers exactly as a missing one does.
 */
const h = await startRecords();
const AGENCIES = ['BPS', 'FIA', 'CUS'] as const;
const users = { BPS: userOf('BPS'), FIA: userOf('FIA'), CUS: userOf('CUS'), ADMIN: userOf('ADMIN') };
type Owner = (typeof AGENCIES)[number];
const active = {} as Record<Owner, { id: string; incidentNumber: string; version: number }>;
const deleted = {} as Record<Owner, { id: string; incidentNumber: string; version: number }>;
const MISSING = 'aaaaaaaaaaaaaaaaaaaaaaaa';

beforeAll(async () => {
  for (const org of AGENCIES) {
    const api = await h.as(users[org]);
    active[org] = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: `${org} Suspect` }))
        .expect(201)
    ).body;
    deleted[org] = (
      await api
        .post('/api/records')
        .send(recordBody({ suspectName: `${org} Gone` }))
        .expect(201)
    ).body;
    await api.delete(`/api/records/${deleted[org].id}`).expect(200);
  }
});

/** The stored state of every record, to prove refused requests changed nothing. */
async function snapshot() {
  const admin = await h.as(users.ADMIN);
  const rows = [
    ...(await admin.get('/api/admin/records?limit=1000').expect(200)).body,
    ...(await admin.get('/api/records/deleted?limit=1000').expect(200)).body,
  ] as Array<{ id: string; version: number; deleted: boolean }>;
  return Object.fromEntries(rows.map((r) => [r.id, `${r.version}:${r.deleted}`]));
}

describe.each(AGENCIES)('as %s', (org) => {
  const others = AGENCIES.filter((o) => o !== org);

  it('lists, searches and lists deleted only its own records', async () => {
    const api = await h.as(users[org]);
    const ids = (res: request.Response) => res.body.map((r: { id: string }) => r.id);
    expect(ids(await api.get('/api/records').expect(200))).toEqual([active[org].id]);
    expect(ids(await api.post('/api/records/search').send({}).expect(200))).toEqual([active[org].id]);
    expect(ids(await api.post('/api/records/search').send({ freeText: 'suspect' }).expect(200))).toEqual([
      active[org].id,
    ]);
    expect(ids(await api.get('/api/records/deleted').expect(200))).toEqual([deleted[org].id]);
  });

  it.each(others)("cannot read, change, delete or restore %s's records: 404 exactly as a missing id", async (owner) => {
    const api = await h.as(users[org]);
    const before = await snapshot();
    const missing = await api.get(`/api/records/${MISSING}`).expect(404);
    const attempts = [
      api.get(`/api/records/${active[owner].id}`),
      api.put(`/api/records/${active[owner].id}`).send(recordBody({ incidentNumber: active[owner].incidentNumber })),
      api.delete(`/api/records/${active[owner].id}`),
      api.post(`/api/records/${active[owner].id}/restore`),
      api.get(`/api/records/${deleted[owner].id}`),
      api.put(`/api/records/${deleted[owner].id}`).send(recordBody({ incidentNumber: deleted[owner].incidentNumber })),
      api.delete(`/api/records/${deleted[owner].id}`),
      api.post(`/api/records/${deleted[owner].id}/restore`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('reads, changes, deletes and restores its own records', async () => {
    const api = await h.as(users[org]);
    const { id, incidentNumber } = active[org];
    await api.get(`/api/records/${id}`).expect(200);
    await api
      .put(`/api/records/${id}`)
      .send(recordBody({ incidentNumber, suspectName: `${org} Suspect` }))
      .expect(200);
    await api.delete(`/api/records/${id}`).expect(200);
    await api.post(`/api/records/${id}/restore`).expect(200);
    expect((await api.get(`/api/records/${id}`).expect(200)).body).toMatchObject({ organization: org, version: 4 });
  });

  it('gets 403 on the ADMIN-only paths and may read the option lists', async () => {
    const api = await h.as(users[org]);
    for (const res of await Promise.all([
      api.get('/api/admin/records'),
      api.put('/api/dropdown-options/source').send({ values: ['A'] }),
      api.put('/api/dropdown-options/country').send({ values: ['A'] }),
    ])) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Admin privileges required', code: 'FORBIDDEN' });
    }
    await api.get('/api/dropdown-options/source').expect(200);
    await api.get('/api/dropdown-options/country').expect(200);
  });
});

describe('as ADMIN', () => {
  it('oversees every organization: reads, lists, deletes and restores any record', async () => {
    const admin = await h.as(users.ADMIN);
    const all = (await admin.get('/api/admin/records').expect(200)).body.map((r: { id: string }) => r.id);
    expect(all).toEqual(expect.arrayContaining(AGENCIES.map((o) => active[o].id)));
    const gone = (await admin.get('/api/records/deleted').expect(200)).body.map((r: { id: string }) => r.id);
    expect(gone.sort()).toEqual(AGENCIES.map((o) => deleted[o].id).sort());
    for (const org of AGENCIES) {
      await admin.get(`/api/records/${active[org].id}`).expect(200);
      await admin.post(`/api/records/${deleted[org].id}/restore`).expect(200);
      await admin.delete(`/api/records/${deleted[org].id}`).expect(200);
    }
  });
});

describe('without a valid identity', () => {
  const paths: Array<[string, string]> = [
    ['get', '/api/records'],
    ['post', '/api/records'],
    ['get', '/api/records/deleted'],
    ['post', '/api/records/search'],
    ['get', `/api/records/${MISSING}`],
    ['put', `/api/records/${MISSING}`],
    ['delete', `/api/records/${MISSING}`],
    ['post', `/api/records/${MISSING}/restore`],
    ['get', '/api/admin/records'],
    ['get', '/api/dropdown-options/source'],
    ['put', '/api/dropdown-options/source'],
  ];

  it.each(paths)('%s %s answers 401 to no token, a forged token and an anonymous visitor', async (method, path) => {
    const call = (headers: Record<string, string>) =>
      (request(h.server) as unknown as Record<string, (p: string) => request.Test>)
        [method]?.(path)
        .set(headers)
        .send({});
    const forged = await signIdentity(users.ADMIN, parseSigner('gateway', newIdentityKeyPair().privateKey));
    const anonymous = await testToken({ kind: 'anonymous' });
    const variants: Array<Record<string, string>> = [
      {},
      { [IDENTITY_HEADER]: forged },
      { [IDENTITY_HEADER]: anonymous },
    ];
    for (const headers of variants) {
      const res = await call(headers);
      expect(res?.status).toBe(401);
    }
  });
});
