import type { Organization } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { blockingKeys, prepareRecord, priorBitsFor, scorePrepared } from '../matching/index.ts';
import { entryFor, MatchIndex } from './match-index.ts';
import {
  estimateMatchRate,
  estimateMatchRateInSlices,
  MATCH_RATE_MAX_AGE_MS,
  MatchRate,
  MIN_MATCHES_PER_RECORD,
  priorBitsForRate,
} from './match-rate.ts';
import { caseRecord as record } from './test-record.ts';

const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';
const DAY_MS = 86_400_000;

/**
 * An index of `people` made-up people (names of letters only: foldName drops digits; each person
 * born on a day of their own, from `firstDay` days after 1 January 1940). With k = 0 each person
 * has one record, of BPS or FIA in turn; with k > 0, k records in BPS and k in FIA, so that every
 * record has k matches in the other organization (and k − 1 in its own, which never count). Every
 * other copy has a typo in the surname's last letter. `ids` in the order they were put.
 */
function clusters(k: number, people: number, seed = 42, firstDay = 0) {
  let state = seed >>> 0;
  const next = (m: number) => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * m);
  };
  const word = () => {
    let w = '';
    for (let s = 3; s > 0; s--) w += `${CONSONANTS[next(CONSONANTS.length)]}${VOWELS[next(VOWELS.length)]}`;
    return w.charAt(0).toUpperCase() + w.slice(1);
  };
  const index = new MatchIndex();
  const ids: string[] = [];
  for (let p = 0; p < people; p++) {
    const given = word();
    const surname = word();
    const suspectDob = new Date(Date.UTC(1940, 0, 1) + (firstDay + p) * DAY_MS).toISOString().slice(0, 10);
    const organizations: Organization[] = k === 0 ? [p % 2 === 0 ? 'BPS' : 'FIA'] : ['BPS', 'FIA'];
    for (const organization of organizations) {
      for (let c = 0; c < Math.max(1, k); c++) {
        const typo = c % 2 === 1 ? `${surname.slice(0, -1)}${surname.endsWith('a') ? 'e' : 'a'}` : surname;
        const r = record({ suspectName: `${given} ${typo}`, suspectDob, organization });
        index.put(entryFor(r));
        ids.push(r.id);
      }
    }
  }
  return Object.assign(index, { ids });
}

describe('estimateMatchRate', () => {
  const none = clusters(0, 2000);
  const one = clusters(1, 1000);
  const three = clusters(3, 400);

  it('estimates the matches a record has in the other organization: about k', () => {
    const r0 = estimateMatchRate(none);
    const r1 = estimateMatchRate(one);
    const r3 = estimateMatchRate(three);
    for (const r of [r0, r1, r3]) {
      expect(r.estimated).toBe(true);
      expect(r.sample).toBeGreaterThan(900);
      expect(r.pairs).toBeGreaterThanOrEqual(200);
    }
    // No duplicates at all: as few as r is allowed to be.
    expect(r0.matchesPerRecord).toBe(MIN_MATCHES_PER_RECORD);
    expect(r1.matchesPerRecord).toBeGreaterThan(0.75);
    expect(r1.matchesPerRecord).toBeLessThan(1.25);
    expect(r3.matchesPerRecord).toBeGreaterThan(2.25);
    expect(r3.matchesPerRecord).toBeLessThan(3.75);
  });

  it('asks less evidence where records have more matches, more where they have none', () => {
    const searched = 2 ** 20;
    const prior = (index: MatchIndex) => {
      index.setMatchesPerRecord(estimateMatchRate(index).matchesPerRecord);
      return index.priorBits(searched);
    };
    const [p0, p1, p3] = [prior(none), prior(one), prior(three)];
    expect(p3).toBeLessThan(p1 - 1);
    expect(p1).toBeLessThan(p0 - 3);
    expect(p0).toBeCloseTo(20 + Math.log2(1 / MIN_MATCHES_PER_RECORD), 6);
  });

  it('keeps r = 1 (the prior of log2(N)) under 1,000 named records', () => {
    const small = clusters(3, 150);
    expect(small.namedCount).toBe(900);
    const estimate = estimateMatchRate(small);
    expect(estimate).toMatchObject({ matchesPerRecord: 1, estimated: false, sample: 0, pairs: 0 });
    const rate = new MatchRate(small);
    rate.estimate();
    for (const n of [0, 1, 900, 10_000, 123_457]) expect(small.priorBits(n)).toBe(priorBitsFor(n));
  });

  it('is the same every time, at once or in slices', async () => {
    const strip = ({ ms: _, ...rest }: { ms: number }) => rest;
    const once = estimateMatchRate(three);
    expect(strip(estimateMatchRate(three))).toEqual(strip(once));
    expect(strip(await estimateMatchRateInSlices(three))).toEqual(strip(once));
  });
});

describe('priorBitsForRate', () => {
  it('is priorBitsFor with r = 1, and log2(N / r) above PRIOR_BITS otherwise', () => {
    for (const n of [0, 1, 5000, 8192, 100_000, 1_234_567]) expect(priorBitsForRate(n, 1)).toBe(priorBitsFor(n));
    expect(priorBitsForRate(2 ** 20, 4)).toBeCloseTo(18, 10);
    expect(priorBitsForRate(2 ** 20, 0.25)).toBeCloseTo(22, 10);
    expect(priorBitsForRate(2 ** 14, 4)).toBe(13);
  });
});

describe('MatchIndex with a match rate', () => {
  it('scores find with the prior of its rate', () => {
    const index = clusters(1, 1000);
    // The name alone (no date of birth): a pair whose confidence the prior moves.
    const query = prepareRecord({ id: 'q', suspectName: 'Zorbavek Quilantho' });
    const target = record({ suspectName: 'Zorbavek Quilantha', suspectDob: '1971-07-19', organization: 'FIA' });
    index.put(entryFor(target));
    const frequencies = index.frequencies();
    const searched = index.activeCount('FIA');
    const confidences = [1, 0.1, 0.02].map((r) => {
      index.setMatchesPerRecord(r);
      const [found] = index.find(query, blockingKeys(query), { threshold: 0, organization: 'FIA' });
      const priorBits = Math.max(13, Math.log2(searched / r));
      expect(found?.entry.id).toBe(target.id);
      expect(found?.result.confidence).toBe(
        scorePrepared(query, entryFor(target).prepared, { frequencies, priorBits }).confidence,
      );
      return found?.result.confidence ?? 0;
    });
    // Fewer matches expected: the same pair is less certain.
    expect(confidences[1]).toBeLessThan(confidences[0]!);
    expect(confidences[2]).toBeLessThan(confidences[1]!);
  });

  it('samples every named active record once at most, the same ones every time', () => {
    const index = clusters(1, 600);
    const all = index.sampleNamed(10_000);
    expect(all).toHaveLength(1200);
    expect(new Set(all.map((e) => e.id))).toEqual(new Set(index.ids));
    const some = index.sampleNamed(100).map((e) => e.id);
    expect(index.sampleNamed(100).map((e) => e.id)).toEqual(some);
    // Spread over the load order, not the first hundred records.
    const late = some.filter((id) => index.ids.indexOf(id) >= 600).length;
    expect(late).toBeGreaterThan(30);
    expect(late).toBeLessThan(70);
  });
});

describe('MatchRate', () => {
  it('re-estimates in the background after a tenth of the records changed, or an hour with any change', async () => {
    let now = 0;
    const index = clusters(3, 400);
    const rate = new MatchRate(index, () => now);
    expect(index.matchesPerRecord).toBe(1);
    const first = rate.estimate();
    expect(index.matchesPerRecord).toBe(first.matchesPerRecord);
    expect(rate.refresh()).toBeUndefined();

    // 239 new records without a match (under a tenth of 2,400): not yet; the 240th: due.
    const loners = clusters(0, 240, 7, 5000);
    const entries = loners.sampleNamed(240);
    for (const entry of entries.slice(0, 239)) index.put(entry);
    expect(rate.due()).toBe(false);
    index.put(entries[239]!);
    const refreshing = rate.refresh();
    expect(refreshing).toBeDefined();
    expect(rate.refresh()).toBeUndefined(); // one at a time
    const second = await refreshing;
    expect(second?.active).toBe(2640);
    expect(second?.matchesPerRecord).toBeLessThan(first.matchesPerRecord);
    expect(index.matchesPerRecord).toBe(second?.matchesPerRecord);

    // One change: due only an hour after the last estimate.
    index.put(entryFor(record({ suspectName: 'Quorvik Zendali', suspectDob: '2001-02-03', organization: 'CUS' })));
    now += MATCH_RATE_MAX_AGE_MS - 1;
    expect(rate.due()).toBe(false);
    now += 1;
    expect(rate.due()).toBe(true);
  });
});
