import { randomUUID } from 'node:crypto';
import type { CaseRecord, Organization, RecordEvent } from '@nrad/contracts';
import { testRecordEvent } from '@nrad/records-service/test-support';
import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyRecordEvents, SAVED_PART_EVENTS } from '../src/use-cases/linking.ts';
import { type LinkingHarness, startLinking, userOf } from './harness.ts';

let h: LinkingHarness;
let template: CaseRecord;
const bps = userOf('BPS');

beforeAll(async () => {
  h = await startLinking();
  template = await h.create(bps, { suspectName: 'Template Person', suspectDob: '1960-01-01' });
});

const eventOf = (type: RecordEvent['type'], record: CaseRecord) => testRecordEvent(type, record, bps);

/**
 * Three agencies' records of one person, as a run of events: BPS's, then Customs', then an edit
 * of BPS's, then FIA's, then Customs' `created` again (a redelivery).
 */
function scenario(suspectName: string, suspectDob: string) {
  const snapshot = (organization: Organization): CaseRecord => ({
    ...template,
    id: new Types.ObjectId().toHexString(),
    incidentNumber: `BATCH-${randomUUID().slice(0, 8)}`,
    organization,
    suspectName,
    suspectDob,
  });
  const [police, customs, fia] = [snapshot('BPS'), snapshot('CUS'), snapshot('FIA')];
  const edited = { ...police, version: 2, caseAmount: '777.00' };
  return {
    records: [police, customs, fia],
    run: [
      eventOf('created', police),
      eventOf('created', customs),
      eventOf('updated', edited),
      eventOf('created', fia),
      eventOf('created', customs),
    ],
  };
}

/** What the run left: each record's stored entry version, and the links among them by position. */
async function outcome(records: CaseRecord[]) {
  const ids = records.map((r) => r.id);
  const entries = await h.db
    .collection('match_index')
    .find({ _id: { $in: ids.map((id) => new Types.ObjectId(id)) } })
    .toArray();
  const links = await h.db
    .collection('links')
    .find({ sourceRecordId: { $in: ids } })
    .toArray();
  return {
    versions: ids.map((id) => entries.find((e) => e._id.toHexString() === id)?.version),
    memory: ids.map((id) => h.built.deps.index.get(id)?.version),
    links: links
      .map((l) => [ids.indexOf(l.sourceRecordId), ids.indexOf(l.linkedRecordId), l.linkType])
      .sort((a, b) => String(a).localeCompare(String(b))),
  };
}

describe('a run of records.* events handled together (the consumer’s batches)', () => {
  it('indexes and links exactly as handling them one by one: a new record links to those before it', async () => {
    const one = scenario('Adaeze Okonkwo-Ferris', '1971-04-05');
    for (const event of one.run) await applyRecordEvents(h.built.deps, [event]);
    const together = scenario('Bartholomew Quillfeather', '1958-11-23');
    await applyRecordEvents(h.built.deps, together.run);

    const expected = {
      versions: [2, 1, 1],
      memory: [2, 1, 1],
      links: [
        [1, 0, 'auto'], // Customs' record, when it came, linked to the police one
        [2, 0, 'auto'], // FIA's to both
        [2, 1, 'auto'],
      ],
    };
    expect(await outcome(one.records)).toEqual(expected);
    expect(await outcome(together.records)).toEqual(expected);

    // Handled together again (a redelivered run): nothing new.
    await applyRecordEvents(h.built.deps, together.run);
    expect(await outcome(together.records)).toEqual(expected);

    // The keys the run held for its entries are let go: the index keeps none of its own.
    for (const { id } of [...one.records, ...together.records]) {
      const entry = h.built.deps.index.get(id);
      expect(entry?.keys).toBeDefined();
      expect(entry?.keys).not.toBe(entry?.keys);
    }
  });

  it('lets requests in while a long run of created records is linked', async () => {
    // Each record's search for matches is made slow (20 ms of synchronous work): a run of 10 would
    // hold the event loop for 200 ms if it never gave it a turn.
    const index = h.built.deps.index;
    const find = index.find.bind(index);
    index.find = (...args) => {
      const until = performance.now() + 20;
      while (performance.now() < until) {}
      return find(...args);
    };
    try {
      const run = Array.from({ length: 10 }, (_, k) =>
        eventOf('created', {
          ...template,
          id: new Types.ObjectId().toHexString(),
          incidentNumber: `SLICE-${randomUUID().slice(0, 8)}`,
          suspectName: `Slice Person${k}`,
        }),
      );
      const turns: number[] = [];
      let linking = true;
      const started = performance.now();
      const tick = () => {
        turns.push(performance.now() - started);
        if (linking) setImmediate(tick);
      };
      setImmediate(tick);
      await applyRecordEvents(h.built.deps, run);
      linking = false;
      turns.push(performance.now() - started); // the run's end: the last stretch without a turn
      const waits = turns.map((t, i) => t - (turns[i - 1] ?? 0));
      expect(turns.length).toBeGreaterThan(5);
      expect(Math.max(...waits)).toBeLessThan(150);
    } finally {
      index.find = find;
    }
  });

  it('stores a long run in parts, each before the index takes any of its records, the next while this one is linked', async () => {
    const { deps } = h.built;
    const created = Array.from({ length: 2 * SAVED_PART_EVENTS + 10 }, (_, k) => ({
      ...template,
      id: new Types.ObjectId().toHexString(),
      incidentNumber: `PART-${randomUUID().slice(0, 8)}`,
      suspectName: `Part Person${k}`,
    }));
    const first = created[0] as CaseRecord;
    // The first record edited in the run's last part: stored at its newest version with the first part.
    const edited = { ...first, version: 2, caseAmount: '4321.00' };
    const run = [...created.map((r) => eventOf('created', r)), eventOf('updated', edited)];

    const stored = new Map<string, number>();
    let saves = 0;
    let pending = 0;
    let putsWhileSaving = 0;
    const saveEntries = deps.store.saveEntries.bind(deps.store);
    const put = deps.index.put.bind(deps.index);
    deps.store.saveEntries = async (part, isNew) => {
      saves++;
      pending++;
      try {
        await saveEntries(part, isNew);
      } finally {
        pending--;
      }
      for (const { entry } of part) stored.set(entry.id, entry.version);
    };
    deps.index.put = (entry) => {
      // Every record the index takes is in the store already, at this version or a newer one.
      expect(stored.get(entry.id) ?? 0).toBeGreaterThanOrEqual(entry.version);
      if (pending > 0) putsWhileSaving++;
      put(entry);
    };
    try {
      await applyRecordEvents(deps, run);
    } finally {
      deps.store.saveEntries = saveEntries;
      deps.index.put = put;
    }
    expect(saves).toBe(3);
    expect(stored.get(first.id)).toBe(2);
    // The first record of each of the first two parts was taken while the next part was being stored.
    expect(putsWhileSaving).toBeGreaterThanOrEqual(2);
    const inStore = await h.db
      .collection('match_index')
      .countDocuments({ _id: { $in: created.map((r) => new Types.ObjectId(r.id)) } });
    expect(inStore).toBe(created.length);
    expect(deps.index.get(first.id)?.version).toBe(2);
  });
});
