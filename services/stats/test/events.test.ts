import { randomUUID } from 'node:crypto';
import { type CaseRecord, type RecordEvent, recordSubject } from '@nrad/contracts';
import { testRecordEvent } from '@nrad/records-service/test-support';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATE_COLLECTION } from '../src/data/store.ts';
import { type StatsHarness, startStats, userOf } from './harness.ts';

let h: StatsHarness;
beforeAll(async () => {
  h = await startStats();
});

const bps = userOf('BPS');
const fia = userOf('FIA');
const cus = userOf('CUS');

const eventOf = (type: RecordEvent['type'], record: CaseRecord) => testRecordEvent(type, record, bps);

describe('the consumer of records.*', () => {
  it('never counts an event twice: re-published under new message ids, or under the same one', async () => {
    const record = await h.create(bps, { internationalNexus: true, country: 'Canada', seizedAmount: '12' });
    const before = await h.read(bps);
    const created = eventOf('created', record);
    await h.publish(created);
    await h.publish(created);
    await h.publish(created, created.id);
    await h.publish(created, created.id);
    await h.caughtUp();
    expect(await h.read(bps)).toEqual(before);
    await h.expectDirect(bps);
  });

  it('ignores an older snapshot arriving after a newer one (out of order)', async () => {
    const v1 = await h.create(fia, { internationalNexus: true, country: 'Canada', seizedAmount: '5' });
    const v2 = await h.edit(fia, v1, { country: 'Jamaica', seizedAmount: '8' });
    const v3 = await h.remove(fia, v2);
    const before = await h.read(fia);
    // The created and updated events again, late, and a forged "restore" at an already-seen version.
    await h.publish(eventOf('created', v1));
    await h.publish(eventOf('updated', v2));
    await h.publish(eventOf('restored', { ...v3, deleted: false, deletedAt: null, deletedById: null }));
    await h.caughtUp();
    expect(await h.read(fia)).toEqual(before);
    expect(h.built.deps.model.versionOf(v1.id)).toBe(3);
    await h.expectDirect(fia);
  });

  it('changes nothing when the whole stream is replayed (consumer deleted and made again)', async () => {
    await h.create(cus, { internationalNexus: true, country: 'Bahamas', seizedAmount: '3.33' });
    const before = await h.read(cus);
    await h.halt();
    await h.bus.jsm.consumers.delete(h.config.RECORDS_STREAM, h.config.RECORDS_CONSUMER);
    await h.restart();
    await h.caughtUp();
    const info = await h.bus.jsm.consumers.info(h.config.RECORDS_STREAM, h.config.RECORDS_CONSUMER);
    const stream = await h.bus.jsm.streams.info(h.config.RECORDS_STREAM);
    expect(info.delivered.stream_seq).toBe(stream.state.last_seq); // every event came again
    expect(await h.read(cus)).toEqual(before);
    await h.expectDirect(cus);
  });

  it('counts what changed while it was down once it is back, from the stored states and the durable consumer', async () => {
    const kept = await h.create(bps, { seizedAmount: '1' });
    await h.halt();
    const api = await h.as(bps);
    const res = await api
      .post('/api/records')
      .send({
        incidentNumber: `DOWN-${randomUUID()}`,
        suspectName: 'Ann Down',
        suspectDob: '1970-01-02',
        incidentDate: kept.incidentDate,
        caseAmount: '10',
        seizedAmount: '2',
        sourceOfRecord: 'Police Investigation',
        internationalNexus: true,
        country: 'Cuba',
      })
      .expect(201);
    await api.delete(`/api/records/${kept.id}`).expect(200);
    await h.restart();
    await h.applied(res.body.id, 1);
    await h.applied(kept.id, 2);
    await h.expectDirect(bps);
  });

  it('reads this month and this year from the clock, in UTC', async () => {
    await h.create(cus);
    const now = await h.stats(cus);
    expect(now.thisMonth).toBeGreaterThan(0);
    const today = new Date();
    const nextMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1, 0, 30));
    await h.restart(() => nextMonth);
    const later = await h.stats(cus);
    expect(later).toMatchObject({ totalRecords: now.totalRecords, thisMonth: 0 });
    expect(later.seizedYear).toBe(nextMonth.getUTCFullYear());
    await h.expectDirect(cus);
    await h.restart();
  });

  it('counts a change at once, and stores it when a failed write is retried, before acknowledging it', async () => {
    const store = h.built.deps.store;
    const save = store.saveMany.bind(store);
    let failures = 0;
    store.saveMany = async (...args) => {
      if (failures++ === 0) throw new Error('the database is down');
      return save(...args);
    };
    try {
      const before = await h.stats(bps);
      const record = await h.create(bps, { seizedAmount: '2.50' }); // counted: the write has not succeeded yet
      expect((await h.stats(bps)).totalRecords).toBe(before.totalRecords + 1);
      await h.caughtUp(); // redelivered after the failure, written, acknowledged
      expect(failures).toBe(2);
      const stored = await h.db.collection(STATE_COLLECTION).findOne({ _id: new Types.ObjectId(record.id) });
      expect(stored).toMatchObject({ version: 1, seizedCents: 250, organization: 'BPS' });
    } finally {
      store.saveMany = save;
    }
    await h.restart();
    await h.expectDirect(bps);
  });

  it('terminates an event that does not decode and goes on with the next', async () => {
    const subject = recordSubject('created', h.config.RECORDS_SUBJECT_PREFIX);
    await h.bus.js.publish(subject, JSON.stringify({ id: 'nope', record: { organization: 'BPS' } }), {
      msgID: randomUUID(),
    });
    await h.bus.js.publish(subject, 'not json', { msgID: randomUUID() });
    await h.create(fia, { seizedAmount: '4' });
    await h.caughtUp();
    await h.expectDirect(fia);
  });
});
