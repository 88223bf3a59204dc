import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type CaseRecord, type Link, type LinkEvent, linkSubject, type Organization } from '@nrad/contracts';
import { freePort, startNats } from '@nrad/infra';
import { waitUntil } from '@nrad/infra/harness';
import { publishEvent } from '@nrad/service-kit';
import { Types } from 'mongoose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { LINKS_DURABLE } from '../src/events/link-consumer.ts';
import { type RecordsHarness, recordBody, startRecords, userOf } from './harness.ts';

/**
 * The records service consumes `links.created` from the linking service (here published straight
 * to this harness's LINKS stream) and keeps each record's Linked flag and linked organizations.
 */

const admin = userOf('ADMIN');

/** A link between two records (as the linking service would store it). */
function linkOf(
  source: Pick<CaseRecord, 'id' | 'organization'>,
  linked: Pick<CaseRecord, 'id' | 'organization'>,
): Link {
  return {
    id: new Types.ObjectId().toHexString(),
    sourceRecordId: source.id,
    linkedRecordId: linked.id,
    sourceOrganization: source.organization,
    linkedOrganization: linked.organization,
    linkType: 'auto',
    confidence: 93.25,
    matchCriteria: { suspectName: true, suspectDob: true, incidentDate: false, caseAmount: true },
    explanation: [{ field: 'suspectName', status: 'match', contribution: 40, weight: 9.5 }],
    createdAt: new Date().toISOString(),
    createdById: null,
  };
}

/** Publishes `links.created` for the link (msg id: the link id unless given); resolves its stream sequence. */
async function publishLink(h: RecordsHarness, link: Link, msgId = link.id) {
  const event: LinkEvent = { id: link.id, type: 'created', time: new Date().toISOString(), actor: null, link };
  return publishEvent(h.bus, linkSubject(h.linksSubjectPrefix), msgId, event);
}

/** Waits until the records consumer has settled every message up to `seq` (acked or terminated). */
async function handledUpTo(h: RecordsHarness, seq: number) {
  await waitUntil(
    `link events up to #${seq} handled`,
    async () => {
      const info = await h.bus.jsm.consumers.info(h.linksStream, LINKS_DURABLE);
      return info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0 && info.num_pending === 0;
    },
    20_000,
  );
}

/** Creates a record as a user of `organization`. */
async function create(h: RecordsHarness, organization: Organization, overrides: Record<string, unknown> = {}) {
  const api = await h.as(userOf(organization));
  return (await api.post('/api/records').send(recordBody(overrides)).expect(201)).body as CaseRecord;
}

/** The record and its ETag, read by ADMIN. */
async function read(h: RecordsHarness, id: string) {
  const res = await (await h.as(admin)).get(`/api/records/${id}`).expect(200);
  return { record: res.body as CaseRecord, etag: String(res.headers.etag) };
}

describe('the Linked flag from links.created', () => {
  it('gives both records the flag and the other organization, without an edit, a version or an event', async () => {
    const h = await startRecords();
    const a = await create(h, 'BPS');
    const b = await create(h, 'FIA');
    expect(a).toMatchObject({ linked: false, linkedOrganizations: [] });
    const before = { a: await read(h, a.id), b: await read(h, b.id) };

    await handledUpTo(h, (await publishLink(h, linkOf(a, b))).seq);

    const after = { a: await read(h, a.id), b: await read(h, b.id) };
    expect(after.a.record).toEqual({ ...before.a.record, linked: true, linkedOrganizations: ['FIA'] });
    expect(after.b.record).toEqual({ ...before.b.record, linked: true, linkedOrganizations: ['BPS'] });
    // Same version, same updatedAt, same ETag: a user who opened the record before can still save.
    expect([after.a.etag, after.b.etag]).toEqual([before.a.etag, before.b.etag]);
    expect(after.a.record).toMatchObject({ version: 1, updatedAt: a.updatedAt });
    const events = await h.settledEvents();
    expect(events.map((e) => [e.type, e.record.id])).toEqual([
      ['created', a.id],
      ['created', b.id],
    ]);

    const bps = await h.as(userOf('BPS'));
    const edited = (
      await bps
        .put(`/api/records/${a.id}`)
        .set('If-Match', before.a.etag)
        .send(recordBody({ incidentNumber: a.incidentNumber, suspectName: 'Edited After Link' }))
        .expect(200)
    ).body;
    expect(edited).toMatchObject({ version: 2, linked: true, linkedOrganizations: ['FIA'] });
    // The records.* snapshot carries the flag too.
    const updated = (await h.settledEvents()).find((e) => e.type === 'updated');
    expect(updated?.record).toEqual(edited);
  });

  it('a record linked to records of two organizations lists both, sorted, each once', async () => {
    const h = await startRecords();
    const fia = await create(h, 'FIA');
    const cus = await create(h, 'CUS');
    const bps = await create(h, 'BPS');
    const cus2 = await create(h, 'CUS');
    await publishLink(h, linkOf(fia, cus));
    await publishLink(h, linkOf(bps, fia)); // the FIA record on the linked side this time
    const last = await publishLink(h, linkOf(cus2, fia)); // CUS again, through another record
    await handledUpTo(h, last.seq);

    expect((await read(h, fia.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['BPS', 'CUS'] });
    for (const other of [cus, bps, cus2]) {
      expect((await read(h, other.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['FIA'] });
    }
  });

  it('a redelivered or re-published event changes nothing', async () => {
    const h = await startRecords();
    const a = await create(h, 'CUS');
    const b = await create(h, 'BPS');
    const link = linkOf(a, b);
    const first = await publishLink(h, link);
    await handledUpTo(h, first.seq);
    const before = { a: await read(h, a.id), b: await read(h, b.id) };

    // The same msg id within the duplicate window: the stream drops it.
    const same = await publishLink(h, link);
    expect(same.duplicate).toBe(true);
    // Another msg id (a re-publish after the window, or a redelivery): handled again, to no effect.
    const again = await publishLink(h, link, `${link.id}-again`);
    expect(again.duplicate).toBe(false);
    const third = await publishLink(h, link, `${link.id}-third`);
    await handledUpTo(h, third.seq);

    expect({ a: await read(h, a.id), b: await read(h, b.id) }).toEqual(before);
    expect(before.a.record).toMatchObject({ linkedOrganizations: ['BPS'], version: 1 });
    const info = await h.bus.jsm.consumers.info(h.linksStream, LINKS_DURABLE);
    expect(info.delivered.stream_seq).toBe(third.seq);
    expect((await h.settledEvents()).map((e) => e.type)).toEqual(['created', 'created']);
  });

  it('an event naming records this service does not have is acknowledged and harmless', async () => {
    const h = await startRecords();
    const known = await create(h, 'FIA');
    const stranger = (organization: Organization) => ({ id: new Types.ObjectId().toHexString(), organization });

    await publishLink(h, linkOf(stranger('BPS'), stranger('CUS')));
    const half = await publishLink(h, linkOf(stranger('CUS'), known));
    await handledUpTo(h, half.seq);

    expect((await read(h, known.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['CUS'], version: 1 });
    const info = await h.bus.jsm.consumers.info(h.linksStream, LINKS_DURABLE);
    expect(info.num_redelivered).toBe(0);
    // Nothing was created for the unknown ids.
    const all = (await (await h.as(admin)).get('/api/admin/records').expect(200)).body as CaseRecord[];
    expect(all.map((r) => r.id)).toEqual([known.id]);
  });

  it('edits running alongside link events keep both the edits and the flags', async () => {
    const h = await startRecords();
    const bps = await h.as(userOf('BPS'));
    const fia = await create(h, 'FIA');
    const cus = await create(h, 'CUS');
    const rounds = 16;
    const targets: CaseRecord[] = [];
    for (let i = 0; i < rounds; i++) targets.push(await create(h, 'BPS'));

    // Every target is edited twice (each edit naming the version it started from: a link in between
    // must not make it stale) while two links of it are being handled.
    const editing = Promise.all(
      targets.map(async (r, i) => {
        let etag = '"1"';
        for (const n of [1, 2]) {
          const res = await bps
            .put(`/api/records/${r.id}`)
            .set('If-Match', etag)
            .send(recordBody({ incidentNumber: r.incidentNumber, suspectName: `Edit ${i} ${n}` }));
          expect(res.status).toBe(200);
          etag = String(res.headers.etag);
        }
      }),
    );
    const linking = (async () => {
      let last = 0;
      for (const r of targets) last = (await publishLink(h, linkOf(r, fia))).seq;
      for (const r of targets) last = (await publishLink(h, linkOf(cus, r))).seq;
      return last;
    })();
    const [, lastSeq] = await Promise.all([editing, linking]);
    await handledUpTo(h, lastSeq);

    for (const [i, r] of targets.entries()) {
      expect((await read(h, r.id)).record).toMatchObject({
        suspectName: `Edit ${i} 2`,
        version: 3,
        linked: true,
        linkedOrganizations: ['CUS', 'FIA'],
      });
    }
    expect((await read(h, fia.id)).record).toMatchObject({ linkedOrganizations: ['BPS'], version: 1 });
    expect((await read(h, cus.id)).record).toMatchObject({ linkedOrganizations: ['BPS'], version: 1 });
    const events = await h.settledEvents();
    expect(events).toHaveLength(2 + rounds * 3);
    expect(events.filter((e) => e.type === 'updated')).toHaveLength(rounds * 2);
  });

  it('shows the flag in get, list, search, the admin list and the deleted list; a deleted record keeps it', async () => {
    const h = await startRecords();
    const name = 'Quentin Linkworth';
    const a = await create(h, 'BPS', { suspectName: name });
    const b = await create(h, 'FIA', { suspectName: name });
    const plain = await create(h, 'BPS', { suspectName: name });
    const gone = await create(h, 'CUS', { suspectName: name });
    await publishLink(h, linkOf(a, b));
    await handledUpTo(h, (await publishLink(h, linkOf(gone, a))).seq);
    const cus = await h.as(userOf('CUS'));
    const deleted = (await cus.delete(`/api/records/${gone.id}`).expect(200)).body;
    expect(deleted).toMatchObject({ deleted: true, linked: true, linkedOrganizations: ['BPS'] });

    const flags = (rows: CaseRecord[]) =>
      Object.fromEntries(rows.map((r) => [r.id, [r.linked, r.linkedOrganizations]]));
    const bpsApi = await h.as(userOf('BPS'));
    const expected = {
      [a.id]: [true, ['CUS', 'FIA']],
      [plain.id]: [false, []],
    };
    expect((await bpsApi.get(`/api/records/${a.id}`).expect(200)).body).toMatchObject({
      linked: true,
      linkedOrganizations: ['CUS', 'FIA'],
    });
    expect(flags((await bpsApi.get('/api/records').expect(200)).body)).toEqual(expected);
    for (const search of [{ suspectName: name }, { freeText: 'linkworth' }]) {
      expect(flags((await bpsApi.post('/api/records/search').send(search).expect(200)).body)).toEqual(expected);
    }
    const adminRows = (await (await h.as(admin)).get('/api/admin/records').expect(200)).body;
    expect(flags(adminRows)).toEqual({ ...expected, [b.id]: [true, ['BPS']] });
    expect(adminRows[0]).toHaveProperty('amount');
    expect(flags((await cus.get('/api/records/deleted').expect(200)).body)).toEqual({ [gone.id]: [true, ['BPS']] });
    // Restored, it still has its link.
    expect((await cus.post(`/api/records/${gone.id}/restore`).expect(200)).body).toMatchObject({
      linked: true,
      linkedOrganizations: ['BPS'],
    });
  });

  it('an undecodable event is terminated and the consumer goes on', async () => {
    const h = await startRecords();
    const a = await create(h, 'FIA');
    const b = await create(h, 'CUS');
    const subject = linkSubject(h.linksSubjectPrefix);
    await h.bus.js.publish(subject, 'this is not JSON', { msgID: 'garbage-1' });
    await publishEvent(h.bus, subject, 'garbage-2', { id: 'x', type: 'created' });
    const bad = { ...linkOf(a, b), sourceRecordId: 'not-an-object-id' };
    await publishEvent(h.bus, subject, 'garbage-3', {
      id: bad.id,
      type: 'created',
      time: bad.createdAt,
      actor: null,
      link: bad,
    });
    const good = await publishLink(h, linkOf(a, b));
    await handledUpTo(h, good.seq);

    expect((await read(h, a.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['CUS'] });
    expect((await read(h, b.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['FIA'] });
    const info = await h.bus.jsm.consumers.info(h.linksStream, LINKS_DURABLE);
    expect(info.num_redelivered).toBe(0);
    expect(info.delivered.stream_seq).toBe(good.seq);
  });

  it('is durable: links published while the service was stopped are applied when it starts again', async () => {
    const h = await startRecords();
    const a = await create(h, 'BPS');
    const b = await create(h, 'CUS');
    const info = await h.bus.jsm.consumers.info(h.linksStream, LINKS_DURABLE);
    expect(info.config).toMatchObject({
      durable_name: 'records-links',
      filter_subject: `${h.linksSubjectPrefix}.*`,
    });

    await h.built.stop();
    const published = await publishLink(h, linkOf(a, b));
    await h.restart();
    await handledUpTo(h, published.seq);
    expect((await read(h, a.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['CUS'] });
    expect((await read(h, b.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['BPS'] });
  });

  it('NATS down for a while: the service stays ready and the consumer resumes when it is back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nrad-nats-'));
    const port = await freePort();
    let nats = await startNats({ storeDir: dir, port });
    try {
      const h = await startRecords({ natsUrl: nats.url });
      const a = await create(h, 'FIA');
      const b = await create(h, 'BPS');
      await nats.process.stop();
      expect((await request(h.server).get('/readyz')).status).toBe(200);
      expect((await read(h, a.id)).record).toMatchObject({ linked: false });

      nats = await startNats({ storeDir: dir, port });
      await waitUntil(
        'the bus reconnected',
        async () => !h.bus.nc.isClosed() && (await h.bus.jsm.getAccountInfo()) !== null,
      );
      const published = await publishLink(h, linkOf(a, b));
      await waitUntil('Linked flag after the outage', async () => (await read(h, a.id)).record.linked, 20_000);
      await handledUpTo(h, published.seq);
      expect((await read(h, b.id)).record).toMatchObject({ linked: true, linkedOrganizations: ['FIA'] });
      await h.stop();
    } finally {
      await nats.process.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
