import { CALIBRATION, DOB_WEIGHTS, NAME_WEIGHTS, withDobLevels } from '@nrad/matching';
import { describe, expect, it } from 'vitest';
import { entryFor, type IndexEntry, MatchIndex } from './match-index.ts';
import { modelChanged, RELINK_BACKLOG_PAUSE_MS, RELINK_SHIFT_BITS, Relinking, rateRose } from './relinking.ts';
import { caseRecord } from './test-record.ts';

describe('modelChanged', () => {
  const estimated = { name: { ...NAME_WEIGHTS, exact: 8 }, dob: { ...DOB_WEIGHTS, exact: 12 } };

  it('is false for the same weights and for moves under RELINK_SHIFT_BITS', () => {
    expect(modelChanged(undefined, undefined)).toBe(false);
    expect(
      modelChanged(estimated, { ...estimated, name: { ...estimated.name, exact: 8 + RELINK_SHIFT_BITS / 2 } }),
    ).toBe(false);
    // A date level over the fixed weights a little off the fixed one: the same calibration, not far.
    expect(modelChanged(undefined, withDobLevels(undefined, { twoParts: DOB_WEIGHTS.twoParts + 0.2 }))).toBe(false);
  });

  it('is true for a level moved RELINK_SHIFT_BITS or more, and for another calibration', () => {
    expect(modelChanged(undefined, withDobLevels(undefined, { twoParts: 3.25 }))).toBe(true);
    expect(modelChanged(estimated, { ...estimated, dob: { ...estimated.dob, slip: 3.5 + RELINK_SHIFT_BITS } })).toBe(
      true,
    );
    // Estimated weights score with EM's calibration: the fixed weights' values with it are another model.
    expect(modelChanged(undefined, { name: NAME_WEIGHTS, dob: DOB_WEIGHTS })).toBe(true);
    expect(modelChanged(undefined, { name: NAME_WEIGHTS, dob: DOB_WEIGHTS, calibration: CALIBRATION })).toBe(false);
  });
});

describe('rateRose', () => {
  it('is true when r rose by 2^RELINK_SHIFT_BITS or more (the prior fell that much), never when it fell', () => {
    expect(rateRose(0.01, 0.01 * 2 ** RELINK_SHIFT_BITS)).toBe(true);
    expect(rateRose(0.1, 0.35)).toBe(true);
    expect(rateRose(0.1, 0.14)).toBe(false);
    expect(rateRose(1, 0.1)).toBe(false);
  });
});

describe('Relinking', () => {
  /** An index of `n` records (the fourth deleted) and a Relinking that notes whom it linked. */
  function setUp(n: number, eachYields = false) {
    const index = new MatchIndex();
    const records = Array.from({ length: n }, (_, k) =>
      caseRecord({ suspectName: `Person Number${k}`, organization: k % 2 ? 'FIA' : 'BPS', deleted: k === 3 }),
    );
    for (const r of records) index.put(entryFor(r));
    const linked: string[] = [];
    const tallies: unknown[] = [];
    const relinking = new Relinking(
      index,
      async (entry: IndexEntry) => {
        linked.push(entry.id);
        // As a record whose links are written: the event loop turns before it is done.
        if (eachYields) await new Promise((resolve) => setImmediate(resolve));
        return { links: 1, possibleMatches: 2 };
      },
      (tally) => tallies.push(tally),
    );
    return { index, records, linked, tallies, relinking };
  }

  it('links again each active record that came before the change, once, and tallies the pass', async () => {
    const { records, linked, tallies, relinking } = setUp(8);
    relinking.request(6);
    expect(relinking.running).toBe(true);
    await relinking.settled();
    expect(relinking.running).toBe(false);
    expect(linked).toEqual([0, 1, 2, 4, 5].map((k) => records[k]!.id));
    expect(tallies).toEqual([{ records: 5, links: 5, possibleMatches: 10 }]);
  });

  it('starts again from the first record when the model changes during a pass', async () => {
    const { records, linked, relinking } = setUp(3000, true);
    relinking.request(3000);
    while (linked.length < 10) await new Promise((resolve) => setImmediate(resolve));
    relinking.request(3000);
    await relinking.settled();
    // The first records were linked twice: before and after the second change.
    expect(linked.filter((id) => id === records[0]!.id)).toHaveLength(2);
    expect(linked.filter((id) => id === records[2999]!.id)).toHaveLength(1);
  });

  it('waits while runs of record events come full', async () => {
    const { linked, relinking } = setUp(4);
    const started = Date.now();
    relinking.backlog();
    relinking.request(4);
    await new Promise((resolve) => setTimeout(resolve, RELINK_BACKLOG_PAUSE_MS / 5));
    expect(linked).toEqual([]);
    await relinking.settled();
    expect(linked).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(RELINK_BACKLOG_PAUSE_MS - 5);
  });
});
