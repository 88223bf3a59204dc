import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IDENTITY_HEADER, REQUEST_ID_HEADER, type RecordImportOutcome } from '@nrad/contracts';
import { freePort, startNats } from '@nrad/infra';
import { waitUntil } from '@nrad/infra/harness';
import { testOnBehalfToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { recordBody, startRecords, userOf } from './harness.ts';

/** What an audit event says, without its id and time. */
const said = (e: { action: string; userId: string | null; organization: string | null; recordIds: string[] }) =>
  `${e.action} ${e.organization} ${e.userId} [${e.recordIds.join(',')}]`;

describe('audit events of the records service (issue 21)', () => {
  it('records every read, list, search and change with the actor, request id and client address', async () => {
    const h = await startRecords();
    const bps = userOf('BPS');
    const admin = userOf('ADMIN');
    const api = await h.as(bps);
    const created = (
      await api
        .post('/api/records')
        .set(REQUEST_ID_HEADER, 'req-create-1')
        .set('x-forwarded-for', '10.1.2.3')
        .send(recordBody({ suspectName: 'Audit Person' }))
        .expect(201)
    ).body;
    const id = created.id as string;
    await api.get(`/api/records/${id}`).set(REQUEST_ID_HEADER, 'req-read-1').expect(200);
    await api.get(`/api/records/${id}?purpose=edit`).expect(200);
    await api.get(`/api/records/${id}?purpose=print`).expect(400);
    await api
      .put(`/api/records/${id}`)
      .send(recordBody({ incidentNumber: created.incidentNumber, suspectName: 'Audit Persons' }))
      .expect(200);
    await api.get('/api/records?limit=5').expect(200);
    await api.post('/api/records/search').send({ suspectName: 'Audit Persons' }).expect(200);
    await api.delete(`/api/records/${id}`).expect(200);
    await api.get('/api/records/deleted').expect(200);
    await api.post(`/api/records/${id}/restore`).expect(200);
    const adminApi = await h.as(admin);
    await adminApi.get('/api/admin/records?limit=3').expect(200);
    await adminApi
      .put('/api/dropdown-options/source')
      .send({ values: ['Police Investigation', 'Tip-off'] })
      .expect(200);

    const events = await h.settledAudit();
    const mine = (action: string) => events.filter((e) => e.action === action);
    expect(events.map((e) => e.action)).toEqual(
      expect.arrayContaining([
        'record.create',
        'record.read',
        'record.edit-form',
        'record.edit',
        'record.list',
        'record.search',
        'record.delete',
        'record.restore',
        'options.update',
      ]),
    );
    const [create] = mine('record.create');
    expect(create).toMatchObject({
      userId: bps.userId,
      organization: 'BPS',
      recordIds: [id],
      requestId: 'req-create-1',
      clientAddress: '10.1.2.3',
      service: 'records',
    });
    expect(create?.subject).toBe(`${h.t.subject('audit')}.record.create`);
    expect(create?.msgId).toBe(create?.id);
    expect(mine('record.read').map(said)).toEqual([`record.read BPS ${bps.userId} [${id}]`]);
    expect(mine('record.read')[0]?.requestId).toBe('req-read-1');
    expect(mine('record.edit-form').map(said)).toEqual([`record.edit-form BPS ${bps.userId} [${id}]`]);
    // One event per change, each of the change's record.
    for (const action of ['record.edit', 'record.delete', 'record.restore']) {
      expect(mine(action).map(said)).toEqual([`${action} BPS ${bps.userId} [${id}]`]);
    }
    // The lists name each record they answered; the search says what was asked.
    const lists = mine('record.list');
    expect(lists.map((e) => e.detail?.list)).toEqual(['active', 'deleted', 'all agencies']);
    expect(lists[0]?.recordIds).toEqual([id]);
    expect(lists[1]?.recordIds).toEqual([id]);
    expect(lists[2]).toMatchObject({ organization: 'ADMIN', recordIds: [id] });
    expect(mine('record.search')[0]).toMatchObject({ recordIds: [id], detail: { suspectName: 'Audit Persons' } });
    expect(mine('options.update')[0]).toMatchObject({ organization: 'ADMIN', detail: { list: 'source' } });
    // Refused input (the 400 above) read nothing and is not a read.
    expect(mine('record.read')).toHaveLength(1);
    // Every event once.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("records another agency's attempts on a record as refusals, and answers them as a missing record", async () => {
    const h = await startRecords();
    const bps = userOf('BPS');
    const fia = userOf('FIA');
    const id = (await (await h.as(bps)).post('/api/records').send(recordBody()).expect(201)).body.id as string;
    const other = await h.as(fia);
    const notFound = { message: 'Record not found' };
    expect((await other.get(`/api/records/${id}`).expect(404)).body).toMatchObject(notFound);
    expect((await other.put(`/api/records/${id}`).send(recordBody()).expect(404)).body).toMatchObject(notFound);
    expect((await other.delete(`/api/records/${id}`).expect(404)).body).toMatchObject(notFound);
    expect((await other.post(`/api/records/${id}/restore`).expect(404)).body).toMatchObject(notFound);
    // An id nobody holds is refused and recorded alike (issue 34: neither the trail nor the time of
    // the answer tells another agency's record from a missing one).
    const nobody = '0123456789abcdef01234567';
    expect((await other.get(`/api/records/${nobody}`).expect(404)).body).toMatchObject(notFound);
    // An agency user on an ADMIN path: 403, recorded with the path.
    await other.get('/api/admin/records').expect(403);

    const refused = (await h.settledAudit()).filter((e) => e.action === 'access.refused');
    expect(refused).toHaveLength(6);
    for (const e of refused) expect(e).toMatchObject({ userId: fia.userId, organization: 'FIA' });
    const ofRecord = refused.filter((e) => e.detail?.status === 404);
    expect(ofRecord).toHaveLength(5);
    expect(ofRecord.filter((e) => e.recordIds[0] === id)).toHaveLength(4);
    expect(ofRecord.filter((e) => e.recordIds[0] === nobody)).toHaveLength(1);
    expect(refused.find((e) => e.detail?.status === 403)).toMatchObject({
      recordIds: [],
      detail: { method: 'GET', path: '/api/admin/records' },
    });
  });

  it("records an import's records as created through an upload, once, with the uploader", async () => {
    const h = await startRecords();
    const owner = userOf('CUS');
    const token = await testOnBehalfToken(owner, 'ingest');
    const send = () =>
      request(h.server)
        .post('/internal/records/import')
        .set(IDENTITY_HEADER, token)
        .set(REQUEST_ID_HEADER, 'req-upload-1')
        .send({ owner, items: [1, 2, 3].map((n) => ({ key: `audit-import:${n}`, body: recordBody() })) });
    const first = await send().expect(200);
    const ids = (first.body.results as RecordImportOutcome[]).map((r) => r.id);
    // Imported again (a retried job): nothing new is created, so nothing new is recorded.
    await send().expect(200);

    const creates = (await h.settledAudit()).filter((e) => e.action === 'record.create');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({
      userId: owner.userId,
      organization: 'CUS',
      requestId: 'req-upload-1',
      detail: { via: 'upload' },
    });
    expect([...(creates[0]?.recordIds ?? [])].sort()).toEqual([...ids].sort());
  });

  it('NATS down: reads still answer, their events wait in the spool and are published once it is back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nrad-nats-'));
    const port = await freePort();
    let nats = await startNats({ storeDir: dir, port });
    try {
      const h = await startRecords({ natsUrl: nats.url });
      const bps = userOf('BPS');
      const api = await h.as(bps);
      const id = (await api.post('/api/records').send(recordBody()).expect(201)).body.id as string;
      await h.settledAudit();

      await nats.process.stop();
      for (let i = 0; i < 3; i++) await api.get(`/api/records/${id}`).expect(200);
      await api.get('/api/records').expect(200);
      expect(h.built.deps.audit.pending).toBe(true);

      nats = await startNats({ storeDir: dir, port });
      // JetStream answers requests again once it has recovered its streams.
      await waitUntil(
        'JetStream back',
        () =>
          h.bus.jsm.streams.info(h.auditStream).then(
            () => true,
            () => false,
          ),
        20_000,
      );
      const events = await h.settledAudit();
      expect(events.filter((e) => e.action === 'record.read')).toHaveLength(3);
      expect(events.filter((e) => e.action === 'record.list')).toHaveLength(1);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    } finally {
      await nats.process.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
