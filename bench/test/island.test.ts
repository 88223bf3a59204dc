import { describe, expect, it } from 'vitest';
import { ISLAND_GIVEN_NAMES, ISLAND_SURNAMES, Island } from '../src/island.ts';
import { Random } from '../src/seed.ts';

describe('a small island’s suspects', () => {
  it('draws 400 surnames and 300 given names with Zipf frequencies, born over sixty years', () => {
    const island = new Island(new Random(1));
    expect(new Set(island.surnames).size).toBe(ISLAND_SURNAMES);
    expect(new Set(island.givenNames).size).toBe(ISLAND_GIVEN_NAMES);
    const rng = new Random(2);
    const counts = new Map<string, number>();
    const years = new Set<number>();
    const n = 50_000;
    for (let i = 0; i < n; i++) {
      const p = island.person(rng);
      const surname = p.suspectName.slice(p.suspectName.indexOf(' ') + 1);
      counts.set(surname, (counts.get(surname) ?? 0) + 1);
      years.add(Number(p.suspectDob.slice(0, 4)));
    }
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const { top, topTen } = island.surnameShares();
    expect(top).toBeCloseTo(0.152, 2);
    expect(sorted[0]! / n).toBeCloseTo(top, 1);
    expect(sorted.slice(0, 10).reduce((s, c) => s + c, 0) / n).toBeCloseTo(topTen, 1);
    // Names repeat: far fewer distinct surnames than records, and the rare ones still appear.
    expect(counts.size).toBeGreaterThan(380);
    expect(Math.min(...years)).toBe(1945);
    expect(Math.max(...years)).toBe(2004);
    // The same seeds, the same people.
    expect(new Island(new Random(1)).person(new Random(2))).toEqual(new Island(new Random(1)).person(new Random(2)));
  });
});
