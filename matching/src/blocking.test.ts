import { describe, expect, it } from 'vitest';
import { blockingKeys, candidatePairs, isNameKey, MAX_BLOCK_SIZE, MAX_KEYS, MAX_NAME_BLOCK_SIZE } from './blocking.ts';
import { type MatchInput, prepareRecord } from './scorer.ts';

const shareKey = (a: MatchInput, b: MatchInput) => {
  const keys = new Set(blockingKeys(a));
  return blockingKeys(b).some((k) => keys.has(k));
};

describe('blockingKeys', () => {
  const base: MatchInput = { id: 'a', suspectName: 'Catherine Wilkinson', suspectDob: '1984-06-15' };

  it('gives a bounded number of plain string keys', () => {
    for (const input of [
      base,
      { id: 'b', suspectName: 'Maria Fernanda de la Cruz Gonzalez Rodriguez', suspectDob: '1984-06-05' },
      { id: 'c', suspectName: 'Li Wei' },
    ]) {
      const keys = blockingKeys(input);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.length).toBeLessThanOrEqual(MAX_KEYS);
      expect(new Set(keys).size).toBe(keys.length);
      for (const k of keys) expect(typeof k).toBe('string');
    }
  });

  it('accepts a prepared record or the raw input alike', () => {
    expect(blockingKeys(prepareRecord(base))).toEqual(blockingKeys(base));
  });

  it.each([
    ['a typo in the name', { suspectName: 'Catherine Wilkinsen' }],
    ['names swapped', { suspectName: 'WILKINSON, Catherine' }],
    ['one name missing', { suspectName: 'Wilkinson' }],
    ['a typo in both names, no date', { suspectName: 'Cathrine Wilkinsom', suspectDob: null }],
    ['the same name, no date', { suspectName: 'Catherine Wilkinson', suspectDob: null }],
    ['a day slip', { suspectDob: '1984-06-16' }],
    ['a month slip', { suspectDob: '1984-07-15' }],
    ['a year slip', { suspectDob: '1985-06-15' }],
    ['a digit slip', { suspectDob: '1934-06-15' }],
    ['an entirely different name, the same date', { suspectName: 'Tom Lee' }],
    // One-word names: the word's code with the date of birth less one of its parts (ym, yd, md).
    ['the surname alone and a day slip', { suspectName: 'Wilkinson', suspectDob: '1984-06-16' }],
    ['the surname alone and a digit slip in the year', { suspectName: 'Wilkinson', suspectDob: '1934-06-15' }],
    ['the given name alone and a month slip', { suspectName: 'Catherine', suspectDob: '1984-07-15' }],
    [
      'the given name alone in its own field and a year slip',
      { suspectName: null, givenName: 'Catherine', suspectDob: '1985-06-15' },
    ],
  ])('true pairs with %s share a key', (_label, change) => {
    expect(shareKey(base, { ...base, id: 'b', ...change })).toBe(true);
  });

  it('keeps one-word names of other people with other dates apart', () => {
    expect(
      shareKey(
        { id: 'a', suspectName: 'Wilkinson', suspectDob: '1984-06-15' },
        { id: 'b', suspectName: 'Wilkinson', suspectDob: '1991-02-03' },
      ),
    ).toBe(false);
    expect(
      shareKey(
        { id: 'a', suspectName: 'Catherine', suspectDob: '1984-06-15' },
        { id: 'b', suspectName: 'Tom', suspectDob: '1984-07-16' },
      ),
    ).toBe(false);
  });

  it('finds day and month swapped', () => {
    const a = { id: 'a', suspectName: 'Anna Berg', suspectDob: '1984-06-05' };
    expect(shareKey(a, { ...a, id: 'b', suspectDob: '1984-05-06' })).toBe(true);
  });

  it('makes no keys from placeholders', () => {
    expect(blockingKeys({ id: 'x', suspectName: 'UNKNOWN', suspectDob: '1900-01-01' })).toEqual([]);
    expect(blockingKeys({ id: 'y', suspectName: 'N/A', suspectDob: '' })).toEqual([]);
  });

  it('keeps different people apart', () => {
    expect(shareKey(base, { id: 'b', suspectName: 'Peter Okafor', suspectDob: '1962-01-30' })).toBe(false);
  });
});

describe('candidatePairs', () => {
  const people: MatchInput[] = [
    { id: '1', organization: 'BPS', suspectName: 'Anna Berg', suspectDob: '1980-01-02' },
    { id: '2', organization: 'FIA', suspectName: 'Berg, Anna', suspectDob: '1980-01-02' },
    { id: '3', organization: 'BPS', suspectName: 'Anna Berg', suspectDob: '1980-01-02' },
    { id: '4', organization: 'CUS', suspectName: 'Tom Lee', suspectDob: '1955-05-05' },
  ];
  const prepared = people.map((p) => prepareRecord(p));

  it('pairs within one list once each, never with itself nor within one organization', () => {
    const { pairs } = candidatePairs(prepared);
    expect(pairs.map(([i, j]) => `${people[i]!.id}-${people[j]!.id}`).sort()).toEqual(['1-2', '2-3']);
  });

  it('pairs across two lists; without organizations, one id is one record', () => {
    const left = [prepareRecord({ id: 'L1', suspectName: 'Anna Berg', suspectDob: '1980-01-02' })];
    const right = [
      prepareRecord({ id: 'R1', suspectName: 'Ana Berg', suspectDob: '1980-01-02' }),
      prepareRecord({ id: 'L1', suspectName: 'Anna Berg', suspectDob: '1980-01-02' }),
      prepareRecord({ id: 'R3', suspectName: 'Tom Lee', suspectDob: '1955-05-05' }),
    ];
    expect(candidatePairs(left, right).pairs).toEqual([[0, 0]]);
  });

  it('skips over-full keys', () => {
    const many = Array.from({ length: 30 }, (_, i) => prepareRecord({ id: String(i), suspectName: 'Anna Berg' }));
    const { pairs, skippedKeys } = candidatePairs(many, undefined, { maxBlockSize: 10, maxNameBlockSize: 10 });
    expect(pairs).toEqual([]);
    expect(skippedKeys).toBeGreaterThan(0);
  });

  const pad = (n: number) => String(n).padStart(2, '0');
  it('skips keys of names alone sooner than keys with a date of birth (MAX_NAME_BLOCK_SIZE)', () => {
    expect(MAX_NAME_BLOCK_SIZE).toBeLessThan(MAX_BLOCK_SIZE);
    expect(['n:ANN:PRK', 'w:anna:b', 'p:an:be'].every(isNameKey)).toBe(true);
    expect(['d:19800101', 'ym:198001:ANN', 'yd:198001:ANN', 'md:0101:ANN', 'ys:19800101:ANN'].some(isNameKey)).toBe(
      false,
    );
    // Thirty Anna Bergs, ten of them born the same day: only the date's keys still pair them.
    const many = Array.from({ length: 30 }, (_, i) =>
      prepareRecord({
        id: String(i),
        suspectName: 'Anna Berg',
        suspectDob: i < 10 ? '1980-01-01' : `19${50 + i}-${pad(1 + (i % 12))}-${pad(1 + (i % 28))}`,
      }),
    );
    const { pairs } = candidatePairs(many, undefined, { maxBlockSize: 100, maxNameBlockSize: 20 });
    expect(pairs).toHaveLength(45); // the ten of one birthday, each pair once
    expect(pairs.every(([i, j]) => i < 10 && j < 10)).toBe(true);
    expect(candidatePairs(many, undefined, { maxBlockSize: 100, maxNameBlockSize: 100 }).pairs).toHaveLength(435);
  });
});
