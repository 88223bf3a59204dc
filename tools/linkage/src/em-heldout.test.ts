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
  type WeightEstimate,
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

describe('estimateWeights with decided pairs (labels, issue 36)', () => {
  const raw = generateHeldout('typos');
  const records = raw.map((r) => prepareRecord(r));
  const { pairs } = candidatePairs(records);
  // Twins: one surname and one date of birth, two people (their given names differ).
  const twins = pairs
    .filter(([i, j]) => raw[i]!.entity !== raw[j]!.entity)
    .filter(([i, j]) => raw[i]!.surname === raw[j]!.surname && raw[i]!.suspectDob === raw[j]!.suspectDob)
    .slice(0, 200);
  const decided = twins.map(([i, j]) => ({ a: records[i]!, b: records[j]!, same: false }));
  // u from fewer random pairs than the default 200,000: what is tested here is m.
  const randomPairs = 50_000;
  let guessedOnce: WeightEstimate | undefined;
  const guessedEstimate = () => {
    guessedOnce ??= estimateWeights(records, pairs, undefined, { randomPairs })!;
    return guessedOnce;
  };

  it('learns from them: twins decided as two people make a disagreeing name word weigh more against', () => {
    expect(twins.length).toBe(200);
    const guessed = guessedEstimate();
    const taught = estimateWeights(records, pairs, undefined, { labels: decided, randomPairs })!;
    expect(taught.weights.name.conflict).toBeLessThan(guessed.weights.name.conflict - 1);
    // They took the place of their guessed observations: as many pairs, 200 of them decided.
    expect(taught.sessions.name).toMatchObject({ pairs: guessed.sessions.name.pairs, labels: 200 });
    expect(guessed.sessions.name.labels).toBe(0);
    // Left out of the share of matches EM finds among the rest, which the twins had raised.
    expect(taught.sessions.name.matchShare).toBeLessThan(guessed.sessions.name.matchShare);
    expect(estimateWeights(records, pairs, undefined, { labels: decided, randomPairs })).toEqual(taught);
  });

  it('counts a decided pair that is no candidate pair as one more observation', () => {
    const apart = { a: records[0]!, b: records[1]!, same: true };
    const guessed = guessedEstimate();
    const taught = estimateWeights(records, pairs, undefined, { labels: [apart], randomPairs })!;
    expect(taught.sessions.name.labels).toBe(1);
    expect(taught.sessions.name.pairs).toBe(guessed.sessions.name.pairs + 1);
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
