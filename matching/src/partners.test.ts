import { describe, expect, it } from 'vitest';
import { candidatePairs } from './blocking.ts';
import { explainedPairs, type PairEvidence } from './partners.ts';
import { scoreCandidatePairs } from './score.ts';
import { DEFAULT_THRESHOLD, pairWeightParts, prepareRecord } from './scorer.ts';

const confirmed: PairEvidence = { confirmed: true, disagrees: false };
const disagreeing: PairEvidence = { confirmed: false, disagrees: true };
const slip: PairEvidence = { confirmed: false, disagrees: false };

describe('explainedPairs', () => {
  it('explains the pairs across two alike people, each written once in each file', () => {
    // Left 0 = person P (date 1), left 1 = person Q (date 2); right 0 = P, right 1 = Q.
    const pairs = [
      [0, 0],
      [1, 1],
      [0, 1],
      [1, 0],
    ] as const;
    const explained = explainedPairs(pairs, [confirmed, confirmed, disagreeing, disagreeing], 2);
    expect(explained).toEqual([false, false, true, true]);
  });

  it('explains nothing when one side has no confirmed match of its own', () => {
    // Right 1 (Q's date) has no confirmed match: P written with a wrong date, or another person.
    const pairs = [
      [0, 0],
      [0, 1],
    ] as const;
    expect(explainedPairs(pairs, [confirmed, disagreeing], 1)).toEqual([false, false]);
  });

  it('does not split one person written many times (the matches are one record, or confirmed together)', () => {
    // Dedupe: 0, 1 and 2 one person; 2's date replaced. 0–1 confirmed, 0–2 and 1–2 disagree:
    // 2 has no confirmed match, so nothing is explained.
    const three = [
      [0, 1],
      [0, 2],
      [1, 2],
    ] as const;
    expect(explainedPairs(three, [confirmed, disagreeing, disagreeing])).toEqual([false, false, false]);
    // 0–3 disagree; 0's match is 1, 3's match is 1 too (the same record): not two people.
    const shared = [
      [0, 1],
      [1, 3],
      [0, 3],
    ] as const;
    expect(explainedPairs(shared, [confirmed, confirmed, disagreeing])).toEqual([false, false, false]);
    // 0–3 disagree; 0's match 1 and 3's match 2 are confirmed with each other: one group.
    const joined = [
      [0, 1],
      [2, 3],
      [1, 2],
      [0, 3],
    ] as const;
    expect(explainedPairs(joined, [confirmed, confirmed, confirmed, disagreeing])).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('never explains a pair that does not disagree (one slip of the date, a typo)', () => {
    const pairs = [
      [0, 0],
      [1, 1],
      [0, 1],
    ] as const;
    expect(explainedPairs(pairs, [confirmed, confirmed, slip], 2)).toEqual([false, false, false]);
  });
});

describe('pairWeightParts: confirmed and disagreeing pairs', () => {
  const record = (id: string, givenName: string, surname: string, suspectDob: string) =>
    prepareRecord({ id, givenName, surname, suspectDob });
  it('tells them apart', () => {
    const zane59 = record('a', 'Zane', 'Dixon', '1959-03-28');
    expect(pairWeightParts(zane59, record('b', 'Zane', 'Dixon', '1959-03-28'))).toMatchObject({
      confirmed: true,
      disagrees: false,
    });
    expect(pairWeightParts(zane59, record('b', 'Zane', 'Dixn', '1959-03-28'))).toMatchObject({
      confirmed: true,
      disagrees: false,
    });
    expect(pairWeightParts(zane59, record('b', 'Zane', 'Dixon', '1959-03-29'))).toMatchObject({
      confirmed: false,
      disagrees: false,
    });
    expect(pairWeightParts(zane59, record('b', 'Zane', 'Dixon', '1987-05-03'))).toMatchObject({
      confirmed: false,
      disagrees: true,
    });
    expect(pairWeightParts(zane59, record('b', 'Amber', 'Dixon', '1959-03-28'))).toMatchObject({
      confirmed: false,
      disagrees: true,
    });
  });
});

describe('link-csv scoring with pairs explained by other matches', () => {
  const people = (rows: ReadonlyArray<readonly [string, string, string]>) =>
    rows.map(([givenName, surname, suspectDob], k) => prepareRecord({ id: `r${k}`, givenName, surname, suspectDob }));
  /** Scores the rows as link-csv does; the result gives a pair's confidence and whether it was explained. */
  const scored = (rows: ReadonlyArray<readonly [string, string, string]>) => {
    const records = people(rows);
    const { pairs } = candidatePairs(records);
    const { confidences, explained } = scoreCandidatePairs(records, pairs);
    return (x: number, y: number) => {
      const k = pairs.findIndex(([i, j]) => (i === x && j === y) || (i === y && j === x));
      expect(k).toBeGreaterThanOrEqual(0);
      return { confidence: confidences[k]!, explained: explained[k]! };
    };
  };

  it('keeps two alike people apart when each is written twice (links that must not form)', () => {
    const rows = [
      ['Zane', 'Dixon', '1959-03-28'],
      ['Zane', 'Dixon', '1959-03-28'],
      ['Zane', 'Dixon', '1987-05-03'],
      ['Zane', 'Dixon', '1987-05-03'],
      ['Aidan', 'Webb', '1941-07-18'],
      ['Aidan', 'Webb', '1941-07-18'],
      ['Aidan', 'Campbell', '1941-07-18'],
      ['Aidan', 'Campbell', '1941-07-18'],
    ] as const;
    const pair = scored(rows);
    expect(pair(0, 1).confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    expect(pair(2, 3).confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    for (const [x, y] of [
      [0, 2],
      [1, 3],
      [4, 6],
      [5, 7],
    ] as const) {
      const { confidence, explained } = pair(x, y);
      expect(explained).toBe(true);
      expect(confidence).toBeLessThanOrEqual(20);
    }
  });

  it('still scores a lone record with another date as before (links that must still form)', () => {
    // Only one record of each date: nothing says there are two people.
    const rows = [
      ['Zane', 'Dixon', '1959-03-28'],
      ['Zane', 'Dixon', '1987-05-03'],
      ['Aidan', 'Webb', '1941-07-18'],
      ['Aidan', 'Campbell', '1941-07-18'],
    ] as const;
    const records = people(rows);
    const { pairs } = candidatePairs(records);
    const { explained } = scoreCandidatePairs(records, pairs);
    expect(explained.some(Boolean)).toBe(false);
    // One person written three times, one date replaced: the replaced one stays in reach.
    const three = [
      ['Keaton', 'Webb', '1994-07-24'],
      ['Keaton', 'Webb', '1994-07-24'],
      ['Keaton', 'Webb', '1985-03-28'],
    ] as const;
    const pair = scored(three);
    expect(pair(0, 2).explained).toBe(false);
    expect(pair(1, 2).explained).toBe(false);
  });
});
