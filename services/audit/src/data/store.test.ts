import type { AuditEvent } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore, ENTRIES_COLLECTION } from './store.ts';

/** The audit store on the real store (our FerretDB build, or MongoDB when MONGO_URL says so). */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('audit') });
afterAll(() => db.close());
const store = new AuditStore(db);
await store.init();

beforeEach(async () => {
  await store.entries.deleteMany({});
  await store.anchors.deleteMany({});
});

let next = 0;
const event = (over: Partial<AuditEvent> = {}): AuditEvent => {
  next++;
  return {
    id: `evt-${next}`,
    action: 'record.read',
    at: new Date(Date.UTC(2026, 10, 25, 9, 0, next % 60)).toISOString(),
    userId: `user-${next % 4}`,
    organization: 'FIA',
    recordIds: [`rec-${next}`],
    requestId: `req-${next}`,
    clientAddress: '10.1.2.3',
    service: 'records',
    ...over,
  };
};

describe('the audit store', () => {
  it('appends events as a chain that verifies, each event once however often it comes', async () => {
    const events = Array.from({ length: 12 }, (_, k) =>
      event(k === 3 ? { action: 'namlc.check', detail: { organization: 'BPS', matches: 2 } } : {}),
    );
    for (const e of events) expect((await store.append(e)).stored).toBe(true);
    const again = await store.append(events[5]!);
    expect(again).toMatchObject({ stored: false, entry: { seq: 6, id: events[5]!.id } });
    expect(await store.entries.countDocuments()).toBe(12);
    const report = await store.verify();
    expect(report).toMatchObject({ checked: 12, last: { seq: 12 } });
    expect(report.broken).toBeUndefined();
  });

  it('keeps one chain when appends race (seq taken: tried again)', async () => {
    const events = Array.from({ length: 8 }, () => event());
    const results = await Promise.all(events.map((e) => store.append(e)));
    expect(results.every((r) => r.stored)).toBe(true);
    expect(results.map((r) => r.entry.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await store.verify()).broken).toBeUndefined();
  });

  it('appends a run at once, in order, skipping what is stored or repeated; runs racing keep one chain', async () => {
    const before = Array.from({ length: 3 }, () => event());
    for (const e of before) await store.append(e);
    const run = Array.from({ length: 10 }, () => event());
    // Two of the run stored already, one given twice.
    await store.appendMany([before[1]!, ...run.slice(0, 5), run[2]!, before[2]!, ...run.slice(5)]);
    const stored = await store.entries.find({}, { _id: 1, eventId: 1 }).sort({ _id: 1 }).lean();
    expect(stored.map((d) => d.eventId)).toEqual([...before, ...run].map((e) => e.id));
    expect(stored.map((d) => d._id)).toEqual(Array.from({ length: 13 }, (_, k) => k + 1));

    // Two runs at once from one writer's view of the head: the second's insert meets a taken seq.
    const a = Array.from({ length: 6 }, () => event());
    const b = Array.from({ length: 6 }, () => event());
    await Promise.all([store.appendMany(a), store.appendMany(b)]);
    expect(await store.entries.countDocuments()).toBe(25);
    const report = await store.verify();
    expect(report).toMatchObject({ checked: 25, last: { seq: 25 } });
    expect(report.broken).toBeUndefined();
    // Each run's events keep their order within the chain.
    const order = (await store.entries.find({}, { eventId: 1 }).sort({ _id: 1 }).lean()).map((d) => d.eventId);
    for (const ids of [a, b].map((r) => r.map((e) => e.id))) {
      expect(order.filter((id) => ids.includes(id))).toEqual(ids);
    }
  });

  it('names the first entry edited or removed in the database afterwards', async () => {
    for (let k = 0; k < 6; k++) await store.append(event());
    await store.entries.collection.updateOne({ _id: 4 as never }, { $set: { userId: 'someone-else' } });
    expect((await store.verify()).broken).toEqual({
      seq: 4,
      reason: 'its fields do not hash to its hash (the entry was changed)',
    });

    await store.entries.deleteMany({});
    for (let k = 0; k < 6; k++) await store.append(event());
    await db.collection(ENTRIES_COLLECTION).deleteOne({ _id: 3 as never });
    const report = await store.verify();
    expect(report.broken?.seq).toBe(4);
    expect(report.checked).toBe(3);
  });

  it('removes only the oldest entries past the cutoff, and the chain still verifies from the anchor', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    // Times by seq: 0, 1, 2, 3, then 10, then 4 (an event stored late), then 11, 12.
    for (const minute of [0, 1, 2, 3, 10, 4, 11, 12]) await store.append(event({ at: at(minute) }));
    const cutoff = new Date(at(5));
    const first = await store.removeOlderThan(cutoff);
    expect(first).toMatchObject({ removed: 4, anchor: { seq: 4 } });
    // The late event (seq 6, minute 4) stays: an entry younger than the cutoff (seq 5) is before it.
    const kept = (await store.entries.find({}, { _id: 1 }).sort({ _id: 1 }).lean()).map((d) => d._id);
    expect(kept).toEqual([5, 6, 7, 8]);
    expect(await store.verify()).toMatchObject({ checked: 4, last: { seq: 8 } });
    expect((await store.verify()).broken).toBeUndefined();
    // Nothing more is old enough; appends go on from the last entry.
    expect(await store.removeOlderThan(cutoff)).toMatchObject({ removed: 0, anchor: { seq: 4 } });
    expect((await store.append(event())).entry.seq).toBe(9);
    expect((await store.verify()).broken).toBeUndefined();
  });

  it('verifies after a retention run that moved the anchor but died before removing', async () => {
    const entries = [];
    for (let k = 0; k < 5; k++) entries.push((await store.append(event())).entry);
    await store.anchors.create({ _id: 'anchor', seq: 2, hash: entries[1]!.hash });
    expect(await store.verify()).toMatchObject({ checked: 3, last: { seq: 5 } });
    expect((await store.verify()).broken).toBeUndefined();
    // An anchor that does not match what follows it is a break.
    await store.anchors.updateOne({ _id: 'anchor' }, { $set: { hash: entries[0]!.hash } });
    expect((await store.verify()).broken?.seq).toBe(3);
  });

  it('refuses a malformed event before it reaches the chain', async () => {
    await expect(store.append({ ...event(), action: 'record.peek' as never })).rejects.toThrow();
    await expect(store.append({ ...event(), recordIds: [''] })).rejects.toThrow();
    expect(await store.entries.countDocuments()).toBe(0);
  });
});
