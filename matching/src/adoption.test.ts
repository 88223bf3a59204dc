import { describe, expect, it } from 'vitest';
import { adoptableWeights, implausibility, MAX_WEIGHT_SHIFT, priorBitsForRate, TYPO_UNDER_EXACT } from './adoption.ts';
import type { WeightEstimate } from './em.ts';
import { priorBitsFor } from './scorer.ts';
import { DOB_WEIGHTS, type LevelWeights, NAME_WEIGHTS } from './weights.ts';

describe('priorBitsForRate', () => {
  it('is priorBitsFor with r = 1, and log2(N / r) above PRIOR_BITS otherwise', () => {
    for (const n of [0, 1, 5000, 8192, 100_000, 1_234_567]) expect(priorBitsForRate(n, 1)).toBe(priorBitsFor(n));
    expect(priorBitsForRate(2 ** 20, 4)).toBeCloseTo(18, 10);
    expect(priorBitsForRate(2 ** 20, 0.25)).toBeCloseTo(22, 10);
    expect(priorBitsForRate(2 ** 14, 4)).toBe(13);
  });
});

describe('adoptableWeights and implausibility', () => {
  const estimateOf = (weights: LevelWeights, pairs = 500, matchShare = 0.8): WeightEstimate => {
    const session = { pairs, labels: 0, matchShare, iterations: 10 };
    return { weights, m: weights, u: weights, sessions: { name: session, dob: session }, randomPairs: 200_000 };
  };
  const like = (name: Partial<LevelWeights['name']>, dob: Partial<LevelWeights['dob']> = {}): LevelWeights => ({
    name: { ...NAME_WEIGHTS, phonetic: 9, ...name },
    dob: { ...DOB_WEIGHTS, impossible: 9, ...dob },
  });

  it('takes the six key levels from the estimate and the others from the fixed weights', () => {
    const weights = adoptableWeights(like({ exact: 8, typo: 6, conflict: -5 }, { exact: 12, slip: 4, mismatch: -3 }));
    expect(weights).toEqual({
      name: { ...NAME_WEIGHTS, exact: 8, typo: 6, conflict: -5 },
      dob: { ...DOB_WEIGHTS, exact: 12, slip: 4, mismatch: -3 },
    });
    expect(implausibility(estimateOf(weights), weights)).toBeUndefined();
  });

  it('puts a typo as heavy as an exact word, or a little heavier, under it; more than that is refused', () => {
    for (const typo of [7.3, 7.5, 7.8]) {
      const weights = adoptableWeights(like({ exact: 7.3, typo }));
      expect(weights.name.typo).toBeCloseTo(7.3 - TYPO_UNDER_EXACT, 10);
      expect(implausibility(estimateOf(weights), weights)).toBeUndefined();
    }
    const heavy = adoptableWeights(like({ exact: 7.3, typo: 7.9 }));
    expect(heavy.name.typo).toBe(7.9);
    expect(implausibility(estimateOf(heavy), heavy)).toBe('name levels not exact > typo > 0 > conflict');
  });

  it('refuses levels out of order, weights far from the fixed ones, and sessions without matches', () => {
    const refused = (name: Partial<LevelWeights['name']>, dob: Partial<LevelWeights['dob']> = {}) => {
      const weights = adoptableWeights(like(name, dob));
      return implausibility(estimateOf(weights), weights);
    };
    expect(refused({ conflict: 0.5 })).toBe('name levels not exact > typo > 0 > conflict');
    expect(refused({ typo: -0.5 })).toBe('name levels not exact > typo > 0 > conflict');
    expect(refused({}, { slip: -1 })).toBe('date-of-birth levels not exact > slip > 0 > mismatch');
    expect(refused({}, { mismatch: 0 })).toBe('date-of-birth levels not exact > slip > 0 > mismatch');
    // A typo under the fixed weight of a look-alike word (similar, 3.5): out of order too.
    expect(refused({ typo: 3 })).toBe('name level similar weighs more than a typo');
    expect(refused({ exact: 12.6, typo: 7 })).toBe(
      `name exact more than ${MAX_WEIGHT_SHIFT} bits from its fixed weight`,
    );
    expect(refused({}, { exact: 9.4 })).toBe(`dob exact more than ${MAX_WEIGHT_SHIFT} bits from its fixed weight`);
    expect(refused({}, { exact: 9.6 })).toBeUndefined();
    const weights = adoptableWeights(like({}));
    expect(implausibility(estimateOf(weights, 500, 0.09), weights)).toBe('the name session found 45.0 matches');
    expect(implausibility(estimateOf(weights, 500, 0.1), weights)).toBeUndefined();
  });
});
