import {
  candidatePairs,
  DEFAULT_THRESHOLD,
  DOB_WEIGHTS,
  ESTIMATE_STEP,
  estimateWeights,
  type LevelWeights,
  NAME_WEIGHTS,
  prepareRecord,
  scorePair,
  weightEstimation,
} from '@nrad/matching';
import { describe, expect, it } from 'vitest';
import { generateHeldout } from './eval/heldout.ts';

describe('estimateWeights (EM)', () => {
  const records = generateHeldout('typos').map((r) => prepareRecord(r));
  const { pairs } = candidatePairs(records);

  it('estimates from the data weights that order the levels as evidence does', () => {
    const estimate = estimateWeights(records, pairs)!;
    expect(estimate).toBeDefined();
    const { name, dob } = estimate.weights;
    expect(name.exact).toBeGreaterThan(4);
    expect(name.typo).toBeGreaterThan(4);
    expect(name.conflict).toBeLessThan(0);
    expect(dob.exact).toBeGreaterThan(dob.slip);
    expect(dob.slip).toBeGreaterThan(dob.mismatch);
    expect(dob.mismatch).toBeLessThan(0);
    // Each session had pairs enough, and found some matches and some non-matches among them.
    for (const session of [estimate.sessions.name, estimate.sessions.dob]) {
      expect(session.pairs).toBeGreaterThanOrEqual(100);
      expect(session.matchShare).toBeGreaterThan(0.05);
      expect(session.matchShare).toBeLessThan(0.999);
    }
    expect(estimate.randomPairs).toBeGreaterThan(190_000);
  });

  it('gives the same weights for the same data (a seeded draw of random pairs)', () => {
    expect(estimateWeights(records, pairs)).toEqual(estimateWeights(records, pairs));
  });

  it('gives the same estimate in steps (weightEstimation), yielding between them', () => {
    const steps = weightEstimation(records, pairs);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(step.value).toEqual(estimateWeights(records, pairs));
    // 200,000 random pairs in steps of ESTIMATE_STEP, the candidate pairs, every EM iteration.
    expect(yields).toBeGreaterThanOrEqual(200_000 / ESTIMATE_STEP - 1 + step.value!.sessions.name.iterations);
  });

  it('gives nothing on too few pairs (the fixed weights are kept)', () => {
    const few = records.slice(0, 50);
    expect(estimateWeights(few, candidatePairs(few).pairs)).toBeUndefined();
  });
});

describe('scorePair with estimated weights', () => {
  const a = { id: 'a', organization: 'BPS', givenName: 'Manfred', surname: 'Neumann', suspectDob: '1961-04-12' };
  const b = { id: 'b', organization: 'FIA', givenName: 'Gabriele', surname: 'Neumann', suspectDob: '1961-04-12' };

  it('weighs each level as estimated: a heavier conflict weight keeps one agreeing word from linking', () => {
    const lenient: LevelWeights = { name: NAME_WEIGHTS, dob: DOB_WEIGHTS };
    const strict: LevelWeights = { name: { ...NAME_WEIGHTS, conflict: -12 }, dob: DOB_WEIGHTS };
    const withLenient = scorePair(a, b, { weights: lenient });
    const withStrict = scorePair(a, b, { weights: strict });
    const nameWeight = (r: typeof withLenient) => r.explanation.find((e) => e.field === 'suspectName')!.weight;
    expect(nameWeight(withLenient)).toBe(NAME_WEIGHTS.exact + NAME_WEIGHTS.conflict);
    expect(nameWeight(withStrict)).toBe(NAME_WEIGHTS.exact - 12);
    expect(withStrict.confidence).toBeLessThan(withLenient.confidence);
    // Names that weigh less than nothing never carry a link: the date of birth alone stays at 20%.
    expect(withStrict.confidence).toBeLessThanOrEqual(20);
    expect(withLenient.confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
  });
});
