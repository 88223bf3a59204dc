import { describe, expect, it } from 'vitest';
import { candidatePairs } from './blocking.ts';
import { estimatePairsPrior, estimatePrior, MIN_ESTIMATED_PRIOR_BITS } from './prior.ts';
import { prepareRecord } from './scorer.ts';

/** Weights of a mixture: `matches` pairs at high weight, `others` candidate non-matches at low weight. */
function mixture(matches: number, others: number): number[] {
  const weights: number[] = [];
  for (let k = 0; k < matches; k++) weights.push(24 + (k % 7)); // name and date of birth agree
  for (let k = 0; k < others; k++) weights.push(-6 + (k % 9)); // a shared key, little else
  return weights;
}

describe('estimatePrior', () => {
  it('recovers the number of matches of a clear mixture, and the prior that goes with it', () => {
    const comparable = 50_000_000; // 10,000 records in one file
    const estimate = estimatePrior(mixture(4000, 60_000), comparable);
    expect(estimate.expectedMatches).toBeGreaterThan(3990);
    expect(estimate.expectedMatches).toBeLessThan(4100);
    expect(estimate.priorBits).toBeCloseTo(Math.log2((comparable - 4000) / 4000), 1);
  });

  it('asks more evidence of a file with few matches than log2(N) would, and less of one with many', () => {
    const comparable = 50_000_000;
    const few = estimatePrior(mixture(50, 60_000), comparable);
    const many = estimatePrior(mixture(40_000, 60_000), comparable);
    const log2N = Math.log2(10_000);
    expect(few.priorBits).toBeGreaterThan(log2N + 5);
    expect(many.priorBits).toBeLessThan(log2N - 2);
  });

  it('stays within its bounds: no pairs at all, and every pair certain', () => {
    const none = estimatePrior([], 1_000);
    expect(none.priorBits).toBeCloseTo(Math.log2(1_000), 2);
    const all = estimatePrior(
      Array.from({ length: 1_000 }, () => 40),
      1_000,
    );
    expect(all.priorBits).toBe(MIN_ESTIMATED_PRIOR_BITS);
  });
});

describe('estimatePairsPrior', () => {
  const person = (id: string, givenName: string, surname: string, suspectDob: string) =>
    prepareRecord({ id, givenName, surname, suspectDob });
  // Made-up words, different enough from one another (a seeded generator: the same every run).
  let seed = 7;
  const letter = () => {
    seed = (seed * 16807) % 2147483647;
    return 'bcdfghklmnprstvz'[seed % 16]! + 'aeiou'[seed % 5]!;
  };
  const words = Array.from({ length: 480 }, () => letter() + letter() + letter() + letter());

  it('gives records entered several times each a lower prior than as many distinct people', () => {
    const clusters = [];
    const distinct = [];
    for (let k = 0; k < 60; k++) {
      const dob = `19${50 + (k % 40)}-0${1 + (k % 9)}-1${k % 10}`;
      for (let copy = 0; copy < 4; copy++) clusters.push(person(`c${k}-${copy}`, words[k]!, words[240 + k]!, dob));
    }
    for (let k = 0; k < 240; k++) {
      distinct.push(person(`d${k}`, words[k]!, words[240 + k]!, `19${50 + (k % 40)}-0${1 + (k % 9)}-1${k % 10}`));
    }
    const onClusters = estimatePairsPrior(clusters, candidatePairs(clusters).pairs, undefined, {});
    const onDistinct = estimatePairsPrior(distinct, candidatePairs(distinct).pairs, undefined, {});
    // 60 people × 6 pairs each = 360 matches among 28,680 pairs.
    expect(onClusters.expectedMatches).toBeGreaterThan(340);
    expect(onClusters.expectedMatches).toBeLessThan(380);
    expect(onDistinct.priorBits).toBeGreaterThan(onClusters.priorBits + 4);
  });
});
