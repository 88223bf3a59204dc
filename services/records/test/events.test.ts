import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IDENTITY_HEADER, type RecordImportOutcome } from '@nrad/contracts';
import { freePort, startNats } from '@nrad/infra';
import { waitUntil } from '@nrad/infra/harness';
import { startConsumer } from '@nrad/service-kit';
import { testOnBehalfToken } from '@nrad/service-kit/test-identity';
import { Types } from 'mongoose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { logger, readStream, recordBody, startRecords, userOf } from './harness.ts';

describe('records.* events on the RECORDS stream', () => {
  it('publishes exactly one event per change, with the actor and the record after the change', async () => {
    const h = await startRecords();
    const bps = userOf('BPS', 'Betty Police');
    const api = await h.as(bps);
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const updated = (
      await api
        .put(`/api/records/${created.id}`)
        .send(recordBody({ incidentNumber: created.incidentNumber, suspectName: 'Jon Smith' }))
        .expect(200)
    ).body;
    const deleted = (await api.delete(`/api/records/${created.id}`).expect(200)).body;
    const restored = (await api.post(`/api/records/${created.id}/restore`).expect(200)).body;
    // Refused requests change nothing and publish nothing.
    await api
      .post('/api/records')
      .send(recordBody({ incidentNumber: created.incidentNumber }))
      .expect(409);
    await api
      .put(`/api/records/${created.id}`)
      .send({ ...recordBody(), version: 1 })
      .expect(409);
    await api.post('/api/records').send({ suspectName: 'x' }).expect(400);

    const events = await h.settledEvents();
    const prefix = h.t.subject('records');
    expect(events.map((e) => [e.subject, e.type, e.record.version])).toEqual([
      [`${prefix}.created`, 'created', 1],
      [`${prefix}.updated`, 'updated', 2],
      [`${prefix}.deleted`, 'deleted', 3],
      [`${prefix}.restored`, 'restored', 4],
    ]);
    expect(events.map((e) => e.record)).toEqual([created, updated, deleted, restored]);
    for (const e of events) {
      expect(e.actor).toEqual({ userId: bps.userId, name: 'Betty Police', organization: 'BPS' });
      expect(Date.parse(e.time)).not.toBeNaN();
      expect(e.msgId).toBe(e.id);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
  });

  it('publishes a new record’s event without waiting to read the record back', async () => {
    // A read by _id can be slow (unpatched FerretDB scans the collection, ADR 0006); the created
    // event must not wait for it. Reading outboxes back is held until the event is in the stream.
    const h = await startRecords();
    const repository = h.built.deps.records;
    const read = repository.outboxOf.bind(repository);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    repository.outboxOf = async (id) => {
      reads++;
      await held;
      return read(id);
    };
    try {
      const api = await h.as(userOf('CUS'));
      const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
      await waitUntil('created event in the stream', async () => {
        const events = await readStream(h.bus, h.stream);
        return events.some((e) => e.type === 'created' && e.record.id === created.id);
      });
      expect(reads).toBeLessThanOrEqual(1); // the relay may be waiting on its read, not before publishing
    } finally {
      release();
    }
    const events = await h.settledEvents();
    expect(events.filter((e) => e.type === 'created')).toHaveLength(1);
  });

  it('publishes an event left pending when the service stopped once it starts again', async () => {
    const h = await startRecords();
    const api = await h.as(userOf('FIA'));
    // The service "dies" between the write and the publish: the relay is stopped, the write happens.
    await h.built.relay.stop();
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    await new Promise((r) => setTimeout(r, 300));
    expect(await readStream(h.bus, h.stream)).toEqual([]);
    await h.restart();
    const events = await h.settledEvents();
    expect(events.map((e) => [e.type, e.record.id])).toEqual([['created', created.id]]);
  });

  it('a change whose answer from the store was lost still has its events published soon, not at the next sweep', async () => {
    // The store applied the write and its answer never came (FerretDB killed between the two): the
    // request fails — 503 with Retry-After, the store out of reach (issue 37) — and the relay
    // retries the record as it would an unpublished event.
    const h = await startRecords({ sweepMs: 3_600_000 });
    const repository = h.built.deps.records;
    const insert = repository.insert.bind(repository);
    const update = repository.updateAtVersion.bind(repository);
    const lost = () => Object.assign(new Error('connection closed'), { name: 'MongoNetworkError' });
    repository.insert = async (scope, doc) => {
      await insert(scope, doc);
      throw lost();
    };
    const api = await h.as(userOf('BPS'));
    const body = recordBody();
    const refused = await api.post('/api/records').send(body).expect(503);
    expect(refused.headers['retry-after']).toBe('5');
    repository.insert = insert;
    await waitUntil('created event in the stream', async () =>
      (await readStream(h.bus, h.stream)).some((e) => e.type === 'created'),
    );
    // The client's retry finds the number taken; its record's events were published once.
    await api.post('/api/records').send(body).expect(409);
    const [created] = (await readStream(h.bus, h.stream)).map((e) => e.record);
    repository.updateAtVersion = async (...args) => {
      await update(...args);
      throw lost();
    };
    await api
      .put(`/api/records/${created?.id}`)
      .set('If-Match', '"1"')
      .send(recordBody({ incidentNumber: body.incidentNumber, suspectName: 'Lost Answer' }))
      .expect(503);
    repository.updateAtVersion = update;
    await waitUntil('updated event in the stream', async () =>
      (await readStream(h.bus, h.stream)).some((e) => e.type === 'updated'),
    );
    const events = await h.settledEvents();
    expect(events.map((e) => [e.type, e.record.id, e.record.version])).toEqual([
      ['created', created?.id, 1],
      ['updated', created?.id, 2],
    ]);
    const audit = (await h.settledAudit()).filter((e) => e.action === 'record.create' || e.action === 'record.edit');
    expect(audit.map((e) => [e.action, e.recordIds])).toEqual([
      ['record.create', [created?.id]],
      ['record.edit', [created?.id]],
    ]);
  });

  it('a re-published event is stored and delivered once', async () => {
    const h = await startRecords();
    const api = await h.as(userOf('CUS'));
    const created = (await api.post('/api/records').send(recordBody()).expect(201)).body;
    const [first] = await h.settledEvents();
    expect(first?.record.id).toBe(created.id);

    // Crash after the stream's acknowledgement but before the event left the outbox: it is still
    // in the document when the service comes back, so the relay publishes it again.
    const records = h.built.deps.records;
    const { version } = (await records.outboxOf(hex(created.id))) ?? { version: 1 };
    const { subject, msgId: _msgId, ...rest } = first as NonNullable<typeof first>;
    await records.setOutbox(hex(created.id), version, [
      { id: rest.id, subject, payload: JSON.stringify(rest), createdAt: new Date() },
    ]);
    await h.restart();
    const after = await h.settledEvents();
    expect(after.map((e) => e.id)).toEqual([first?.id]);

    const delivered: string[] = [];
    const consumer = await startConsumer({
      bus: h.bus,
      stream: h.stream,
      durable: 'once-test',
      decode: (d) => d as { id: string },
      handle: async (e) => {
        delivered.push(e.id);
      },
      logger,
    });
    await waitUntil('delivery', async () => delivered.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    await consumer.stop();
    expect(delivered).toEqual([first?.id]);
  });

  it('NATS down for a while delays events but loses none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nrad-nats-'));
    const port = await freePort();
    let nats = await startNats({ storeDir: dir, port });
    try {
      const h = await startRecords({ natsUrl: nats.url });
      const api = await h.as(userOf('BPS'));
      const before = (await api.post('/api/records').send(recordBody()).expect(201)).body;
      await h.settledEvents();

      await nats.process.stop();
      // Changes keep working while the stream is unreachable; their events wait in the outbox.
      const during: Array<{ id: string }> = [];
      for (let i = 0; i < 5; i++) during.push((await api.post('/api/records').send(recordBody()).expect(201)).body);
      await api
        .put(`/api/records/${before.id}`)
        .send(recordBody({ incidentNumber: before.incidentNumber, suspectName: 'Changed While Down' }))
        .expect(200);
      await api.delete(`/api/records/${during[0]?.id}`).expect(200);
      // An import (the ingest worker's path) as well: its events wait in the import outbox.
      const uploader = userOf('BPS');
      const imported = await request(h.server)
        .post('/internal/records/import')
        .set(IDENTITY_HEADER, await testOnBehalfToken(uploader, 'ingest'))
        .send({
          owner: uploader,
          items: [1, 2, 3].map((n) => ({ key: `down-${Date.now()}:${n}`, body: recordBody() })),
        })
        .expect(200);
      const importedIds = (imported.body.results as RecordImportOutcome[]).map((r) => r.id);
      expect(importedIds.every(Boolean)).toBe(true);
      const pending = await h.built.deps.records.withPendingEvents(100);
      expect(pending.length).toBe(6);
      expect(await h.built.deps.imports.oldest(10)).toHaveLength(1);
      expect((await request(h.server).get('/readyz')).status).toBe(200);

      nats = await startNats({ storeDir: dir, port });
      const events = await h.settledEvents();
      expect(events.map((e) => `${e.type}:${e.record.id}`)).toEqual(
        expect.arrayContaining([
          `created:${before.id}`,
          ...during.map((r) => `created:${r.id}`),
          `updated:${before.id}`,
          `deleted:${during[0]?.id}`,
          ...importedIds.map((id) => `created:${id}`),
        ]),
      );
      expect(events).toHaveLength(11);
      // Per record, the order of changes is kept.
      const ofFirst = events.filter((e) => e.record.id === during[0]?.id).map((e) => e.type);
      expect(ofFirst).toEqual(['created', 'deleted']);
      await h.stop();
    } finally {
      await nats.process.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

const hex = (id: string) => new Types.ObjectId(id);
