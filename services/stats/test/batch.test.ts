import type { CaseRecord, RecordEvent } from '@nrad/contracts';
import { testRecordEvent } from '@nrad/records-service/test-support';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATE_COLLECTION } from '../src/data/store.ts';
import { applyRecordEvents } from '../src/use-cases/stats.ts';
import { type StatsHarness, startStats, userOf } from './harness.ts';

let h: StatsHarness;
beforeAll(async () => {
  h = await startStats();
});

const bps = userOf('BPS');
const eventOf = (type: RecordEvent['type'], record: CaseRecord) => testRecordEvent(type, record, bps);

/** The stored states of `ids`, by id (without the time each was written). */
async function storedStates(ids: string[]) {
  const docs = await h.db
    .collection(STATE_COLLECTION)
    .find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } })
    .toArray();
  return Object.fromEntries(docs.map(({ _id, appliedAt: _, ...rest }) => [_id.toHexString(), rest]));
}

describe('a run of records.* events handled together (the consumer’s batches)', () => {
  it('stores and counts exactly what handling them one by one would', async () => {
    const known = await h.create(bps, { internationalNexus: true, country: 'Canada', seizedAmount: '4' });
    await h.halt(); // from here the service's own consumer takes nothing: the test hands the events
    const edited = await h.edit(bps, known, { country: 'Jamaica', seizedAmount: '9' });
    const fresh = await h.create(bps, { internationalNexus: true, country: 'Bahamas', seizedAmount: '1.5' });
    const other = await h.create(bps, { seizedAmount: '2' });
    const removed = await h.remove(bps, other);
    const run = [
      eventOf('created', fresh),
      eventOf('updated', edited),
      eventOf('created', fresh), // a redelivery inside the run
      eventOf('created', known), // older than what the store holds
      eventOf('created', other),
      eventOf('deleted', removed),
    ];
    const ids = [known.id, fresh.id, other.id];

    const states = h.db.collection(STATE_COLLECTION);
    const before = await states.findOne({ _id: new Types.ObjectId(known.id) }); // version 1

    // One by one, on a fresh service instance's model and store...
    await h.restart();
    await h.halt();
    for (const event of run) await applyRecordEvents(h.built.deps, [event]);
    const oneByOne = await storedStates(ids);
    const modelOneByOne = ids.map((id) => h.built.deps.model.stateOf(id));
    // Back to the state before the run: `known` at version 1, the other two never seen.
    await states.deleteMany({ _id: { $in: [fresh.id, other.id].map((id) => new Types.ObjectId(id)) } });
    expect(before).toMatchObject({ version: 1 });
    await states.replaceOne({ _id: new Types.ObjectId(known.id) }, before as object);

    // ...and together, from the state before the run.
    await h.restart();
    await h.halt();
    expect(h.built.deps.model.stateOf(fresh.id)).toBeUndefined();
    expect(h.built.deps.model.versionOf(known.id)).toBe(1);
    await applyRecordEvents(h.built.deps, run);
    expect(await storedStates(ids)).toEqual(oneByOne);
    expect(ids.map((id) => h.built.deps.model.stateOf(id))).toEqual(modelOneByOne);
    expect(h.built.deps.unsaved.size).toBe(0);
    expect(oneByOne[known.id]).toMatchObject({ version: 2, country: 'Jamaica' });
    expect(oneByOne[other.id]).toMatchObject({ version: 2, deleted: true });

    // The service resumes: the events it had not taken change nothing more, and the figures are right.
    await h.restart();
    await h.caughtUp();
    expect(await storedStates(ids)).toEqual(oneByOne);
    await h.expectDirect(bps);
  });
});
