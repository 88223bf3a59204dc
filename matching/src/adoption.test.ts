import { describe, expect, it } from 'vitest';
import {
  adoptableDobLevels,
  adoptableWeights,
  implausibility,
  MAX_WEIGHT_SHIFT,
  MIN_LEVEL_MATCHES,
  priorBitsForRate,
  TYPO_UNDER_EXACT,
  UNDER_SLIP,
  withDobLevels,
} from './adoption.ts';
import type { WeightEstimate } from './em.ts';
import { prepareRecord, priorBitsFor, scorePrepared } from './scorer.ts';
import { CALIBRATION, DOB_WEIGHTS, type LevelWeights, NAME_WEIGHTS } from './weights.ts';

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

describe("adoptableDobLevels and withDobLevels (issue 36: how a population's dates go wrong)", () => {
  // A date-of-birth session of 1,000 pairs, 600 of them matches; m at each level as given.
  const estimateOf = (
    dob: Partial<LevelWeights['dob']>,
    m: Partial<LevelWeights['dob']>,
    pairs = 1000,
  ): WeightEstimate => {
    const weights = { name: NAME_WEIGHTS, dob: { ...DOB_WEIGHTS, ...dob } };
    const session = { pairs, labels: 0, matchShare: 0.6, iterations: 10 };
    const mDob = { ...DOB_WEIGHTS, near: 0, twoParts: 0, ...m };
    return {
      weights,
      m: { name: NAME_WEIGHTS, dob: mDob },
      u: weights,
      sessions: { name: session, dob: session },
      randomPairs: 200_000,
    };
  };
  const enough = MIN_LEVEL_MATCHES / 600;

  it('takes a level the session found in enough matches, never as telling as a slip nor under a mismatch', () => {
    expect(
      adoptableDobLevels(estimateOf({ twoParts: 2.5, near: 1 }, { twoParts: enough, near: enough }), DOB_WEIGHTS),
    ).toEqual({
      twoParts: 2.5,
      near: 1,
    });
    // Heavier than the slip in use (fixed 3.5, or an adopted one): put UNDER_SLIP under it.
    const heavy = estimateOf({ twoParts: 4.9, slip: 8 }, { twoParts: 0.05 });
    expect(adoptableDobLevels(heavy, DOB_WEIGHTS)).toEqual({ twoParts: DOB_WEIGHTS.slip - UNDER_SLIP });
    expect(adoptableDobLevels(heavy, { ...DOB_WEIGHTS, slip: 8 })).toEqual({ twoParts: 4.9 });
    expect(adoptableDobLevels(estimateOf({ twoParts: -7 }, { twoParts: 0.05 }), DOB_WEIGHTS)).toEqual({
      twoParts: DOB_WEIGHTS.mismatch,
    });
  });

  it('leaves a level seen in too few matches, and everything when the session is too small or out of order', () => {
    // FEBRL 3: two parts agreeing in about one true pair of its session.
    expect(adoptableDobLevels(estimateOf({ twoParts: 3 }, { twoParts: enough * 0.99 }), DOB_WEIGHTS)).toEqual({});
    const plenty = { twoParts: 0.05, near: 0.05 };
    expect(adoptableDobLevels(estimateOf({ twoParts: 3 }, plenty, 99), DOB_WEIGHTS)).toEqual({});
    expect(adoptableDobLevels(estimateOf({ twoParts: 3, mismatch: 0.5 }, plenty), DOB_WEIGHTS)).toEqual({});
    expect(adoptableDobLevels(estimateOf({ twoParts: 3, slip: 15 }, plenty), DOB_WEIGHTS)).toEqual({});
  });

  it('scores over the fixed weights with their calibration, and a pair with such a date still goes to review', () => {
    expect(withDobLevels(undefined, {})).toBeUndefined();
    const adopted = { name: NAME_WEIGHTS, dob: { ...DOB_WEIGHTS, exact: 12 } };
    expect(withDobLevels(adopted, { near: 1 })).toEqual({ name: NAME_WEIGHTS, dob: { ...adopted.dob, near: 1 } });
    const overFixed = withDobLevels(undefined, { twoParts: 3 });
    expect(overFixed).toEqual({ name: NAME_WEIGHTS, dob: { ...DOB_WEIGHTS, twoParts: 3 }, calibration: CALIBRATION });
    const review = { partialName: 97.7, loneWord: 49.8, unconfirmedDob: 66.7 };
    const score = (dob: string, weights?: LevelWeights) =>
      scorePrepared(
        prepareRecord({ id: 'a', organization: 'BPS', suspectName: 'Richard Dekker', suspectDob: '1931-01-05' }),
        prepareRecord({ id: 'b', organization: 'FIA', suspectName: 'Richard Dekker', suspectDob: dob }),
        { review, priorBits: 16, weights },
      );
    // A date not at those levels scores as with the fixed weights alone.
    expect(score('1931-01-05', overFixed).confidence).toBe(score('1931-01-05').confidence);
    expect(score('1931-01-06', overFixed).confidence).toBe(score('1931-01-06').confidence);
    // The year replaced: for the pair now, but still a namesake for review, capped at its class.
    const fixed = score('1964-01-05');
    const learnt = score('1964-01-05', overFixed);
    expect(fixed.explanation[1]).toMatchObject({ status: 'mismatch', weight: -4 });
    expect(learnt.explanation[1]).toMatchObject({ status: 'partial', weight: 3 });
    expect(learnt.confidence).toBeGreaterThan(fixed.confidence);
    expect(learnt.confidence).toBeLessThanOrEqual(review.unconfirmedDob);
    expect(learnt.uncertain).toBe('unconfirmedDob');
  });
});
