import { NEXT_CURSOR_HEADER, TOTAL_COUNT_HEADER } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

const h = await startRecords();
const bps = userOf('BPS', 'Betty Police');
const admin = userOf('ADMIN', 'Ada Admin');

describe('create, read, edit, delete, restore', () => {
  it('creates a record with amounts as decimal strings, dates as days, owner from the identity', async () => {
    const api = await h.as(bps);
    const body = recordBody({ caseAmount: '1234.5', internationalNexus: true, country: 'france' });
    const res = await api.post('/api/records').send(body).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[a-f0-9]{24}$/),
      incidentNumber: body.incidentNumber,
      suspectName: 'John Smith',
      suspectDob: '1980-05-17',
      incidentDate: '2024-03-02',
      caseAmount: '1234.50',
      seizedAmount: '250.50',
      confiscatedAmount: '0.00',
      sourceOfRecord: 'Police Investigation',
      namlcOrganization: null,
      internationalNexus: true,
      cyberAssisted: false,
      country: 'France',
      crimeType: null,
      crimeSubtype: null,
      additionalInfo: null,
      organization: 'BPS',
      createdById: bps.userId,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deleted: false,
      deletedAt: null,
      deletedById: null,
      version: 1,
      linked: false,
      linkedOrganizations: [],
    });
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/api/records/${res.body.id}`);
    const got = await api.get(`/api/records/${res.body.id}`).expect(200);
    expect(got.body).toEqual(res.body);
  });

  it('defaults seized and confiscated amounts to 0 and the country to Bermuda', async () => {
    const api = await h.as(bps);
    const { seizedAmount: _s, confiscatedAmount: _c, ...body } = recordBody();
    const res = await api.post('/api/records').send(body).expect(201);
    expect(res.body).toMatchObject({ seizedAmount: '0.00', confiscatedAmount: '0.00', country: 'Bermuda' });
  });

  it('edits with PUT, bumps the version, and refuses a stale version or If-Match with 409', async () => {
    const api = await h.as(bps);
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const edit = recordBody({ incidentNumber: created.incidentNumber, suspectName: 'John Smyth', crimeType: 'Fraud' });
    const updated = await api
      .put(`/api/records/${created.id}`)
      .send({ ...edit, version: 1 })
      .expect(200);
    expect(updated.body).toMatchObject({ suspectName: 'John Smyth', crimeType: 'Fraud', version: 2 });
    expect(updated.headers.etag).toBe('"2"');
    // A second editor who also started from version 1 loses, and changes nothing.
    const stale = await api
      .put(`/api/records/${created.id}`)
      .send({ ...edit, suspectName: 'Lost Edit', version: 1 })
      .expect(409);
    expect(stale.body.message).toMatch(/changed by someone else/);
    expect(stale.body.code).toBe('STALE_VERSION');
    await api.put(`/api/records/${created.id}`).set('If-Match', '"1"').send(edit).expect(409);
    const now = await api.get(`/api/records/${created.id}`).expect(200);
    expect(now.body).toMatchObject({ suspectName: 'John Smyth', version: 2 });
    await api.put(`/api/records/${created.id}`).set('If-Match', '"2"').send(edit).expect(200);
  });

  it('lets exactly one of two concurrent edits from the same version win', async () => {
    const api = await h.as(bps);
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const send = (name: string) =>
      api
        .put(`/api/records/${created.id}`)
        .send(recordBody({ incidentNumber: created.incidentNumber, suspectName: name, version: 1 }));
    const results = await Promise.all([send('First Editor'), send('Second Editor')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)?.body.suspectName;
    expect((await api.get(`/api/records/${created.id}`)).body).toMatchObject({ suspectName: winner, version: 2 });
  });

  it('soft-deletes, lists deleted, and restores', async () => {
    const api = await h.as(bps);
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const deleted = await api.delete(`/api/records/${created.id}`).expect(200);
    expect(deleted.body).toMatchObject({ deleted: true, deletedById: bps.userId, version: 2 });
    expect(deleted.body.deletedAt).toEqual(expect.any(String));
    await api.get(`/api/records/${created.id}`).expect(404);
    await api.delete(`/api/records/${created.id}`).expect(404);
    const list = (await api.get('/api/records').expect(200)).body as Array<{ id: string }>;
    expect(list.map((r) => r.id)).not.toContain(created.id);
    const gone = (await api.get('/api/records/deleted').expect(200)).body as Array<{ id: string }>;
    expect(gone[0]?.id).toBe(created.id);
    const restored = await api.post(`/api/records/${created.id}/restore`).expect(200);
    expect(restored.body).toMatchObject({ deleted: false, deletedAt: null, deletedById: null, version: 3 });
    await api.post(`/api/records/${created.id}/restore`).expect(404);
    await api.get(`/api/records/${created.id}`).expect(200);
  });

  it('answers 409 "Incident number already exists" on create and edit, ignoring case and spaces', async () => {
    const api = await h.as(bps);
    const first = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const dup = await api
      .post('/api/records')
      .send(recordBody({ incidentNumber: ` ${first.incidentNumber.toLowerCase()} ` }))
      .expect(409);
    expect(dup.body).toEqual({ message: 'Incident number already exists', code: 'INCIDENT_NUMBER_TAKEN' });
    // Another agency cannot take it either: the number is unique across the system (SPEC §3).
    const fia = await h.as(userOf('FIA'));
    await fia
      .post('/api/records')
      .send(recordBody({ incidentNumber: first.incidentNumber }))
      .expect(409);
    const second = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    await api
      .put(`/api/records/${second.id}`)
      .send(recordBody({ incidentNumber: first.incidentNumber }))
      .expect(409);
    expect((await api.get(`/api/records/${second.id}`)).body.incidentNumber).toBe(second.incidentNumber);
  });
});

describe('lists and paging', () => {
  it('lists newest first in pages with the total and the next cursor in headers', async () => {
    const cus = userOf('CUS');
    const api = await h.as(cus);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await api.post('/api/records').send(recordBody()).expect(201)).body.id);
    const all = await api.get('/api/records').expect(200);
    expect(all.headers[TOTAL_COUNT_HEADER]).toBe('7');
    expect(all.headers[NEXT_CURSOR_HEADER]).toBeUndefined();
    expect(all.body.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await api.get(`/api/records?limit=3${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      expect(res.headers[TOTAL_COUNT_HEADER]).toBe('7');
      seen.push(...res.body.map((r: { id: string }) => r.id));
      cursor = res.headers[NEXT_CURSOR_HEADER];
      if (cursor) expect(res.headers.link).toContain('rel="next"');
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses a bad limit or cursor with 400', async () => {
    const api = await h.as(bps);
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'cursor=%24gt', 'cursor=bm90LWEtY3Vyc29y']) {
      const res = await api.get(`/api/records?${q}`).expect(400);
      expect(res.body.message).toMatch(/limit|cursor/);
    }
  });
});

describe('admin views and option lists', () => {
  it("lists every agency's records with their amount for ADMIN only", async () => {
    const fia = await h.as(userOf('FIA'));
    const r = (
      await fia
        .post('/api/records')
        .send(recordBody({ caseAmount: '10.10', seizedAmount: '5', confiscatedAmount: '0.90' }))
        .expect(201)
    ).body;
    const res = await (await h.as(admin)).get('/api/admin/records?limit=1000').expect(200);
    const row = res.body.find((x: { id: string }) => x.id === r.id);
    expect(row).toMatchObject({ organization: 'FIA', amount: '16.00' });
    expect(new Set(res.body.map((x: { organization: string }) => x.organization))).toEqual(
      new Set(['BPS', 'FIA', 'CUS']),
    );
    await (await h.as(bps)).get('/api/admin/records').expect(403);
  });

  it('serves the default option lists and lets ADMIN replace them', async () => {
    const api = await h.as(bps);
    const sources = (await api.get('/api/dropdown-options/source').expect(200)).body;
    expect(sources.map((o: { value: string }) => o.value)).toContain('Referral from NAMLC organization');
    const countries = (await api.get('/api/dropdown-options/country').expect(200)).body;
    expect(countries).toHaveLength(196);
    expect(countries[0]).toEqual({ id: expect.any(String), value: expect.any(String) });
    await api.get('/api/dropdown-options/colours').expect(404);

    await api
      .put('/api/dropdown-options/source')
      .send({ values: ['X'] })
      .expect(403);
    const adminApi = await h.as(admin);
    const kept = sources.find((o: { value: string }) => o.value === 'Police Investigation');
    const res = await adminApi
      .put('/api/dropdown-options/source')
      .send({
        values: ['  Police Investigation ', '', 'Tip Line', 'tip line', '   ', 'Referral from NAMLC organization'],
      })
      .expect(200);
    expect(res.body.map((o: { value: string }) => o.value)).toEqual([
      'Police Investigation',
      'Tip Line',
      'Referral from NAMLC organization',
    ]);
    expect(res.body[0].id).toBe(kept.id);
    expect((await api.get('/api/dropdown-options/source')).body).toEqual(res.body);

    for (const bad of [
      { values: [] },
      { values: ['  ', ''] },
      { values: 'x' },
      { values: [1] },
      {},
      { values: ['a'], extra: 1 },
    ]) {
      const r = await adminApi.put('/api/dropdown-options/source').send(bad).expect(400);
      expect(r.body.message).toMatch(/values|extra|Unrecognized/);
    }
    expect((await api.get('/api/dropdown-options/source')).body).toEqual(res.body);

    // The new list is what records are checked against; a record keeps a value removed later.
    await api
      .post('/api/records')
      .send(recordBody({ sourceOfRecord: 'Tip Line' }))
      .expect(201);
    const refused = await api
      .post('/api/records')
      .send(recordBody({ sourceOfRecord: 'Customs Inspection' }))
      .expect(400);
    expect(refused.body.message).toBe('sourceOfRecord: must be one of the Source of Record options');
    await adminApi
      .put('/api/dropdown-options/source')
      .send({ values: sources.map((o: { value: string }) => o.value) })
      .expect(200);
  });
});
