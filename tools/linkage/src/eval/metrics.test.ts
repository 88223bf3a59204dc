import { describe, expect, it } from 'vitest';
import { bestF1, bestRecallAtPrecision, fitCalibration, qualityAt, reliability } from './metrics.ts';

const pairs = [
  { confidence: 100, isMatch: true },
  { confidence: 90, isMatch: true },
  { confidence: 80, isMatch: false },
  { confidence: 70, isMatch: true },
  { confidence: 70, isMatch: false },
  { confidence: 10, isMatch: true },
];

describe('metrics', () => {
  it('computes precision, recall and F1 at a threshold', () => {
    const q = qualityAt(pairs, 5, 70);
    expect(q).toMatchObject({ truePositives: 3, falsePositives: 2, precision: 0.6, recall: 0.6 });
    expect(q.f1).toBeCloseTo(0.6);
    expect(qualityAt(pairs, 5, 101).precision).toBe(1);
  });

  it('finds the best recall at a minimum precision, only at real thresholds', () => {
    expect(bestRecallAtPrecision(pairs, 5, 1)).toMatchObject({ threshold: 90, recall: 0.4 });
    expect(bestRecallAtPrecision(pairs, 5, 0.6)).toMatchObject({ threshold: 10, recall: 0.8 });
    expect(bestRecallAtPrecision([{ confidence: 50, isMatch: false }], 1, 0.5)).toBeUndefined();
  });

  it('finds the best F1 over the real thresholds', () => {
    // At 70: precision 3/5, recall 3/5; at 90: 2/2, 2/5 (F1 0.571…); at 10: 4/6, 4/5 (F1 0.727…).
    expect(bestF1(pairs, 5)).toMatchObject({ threshold: 10, truePositives: 4, falsePositives: 2 });
    expect(bestF1([], 5)).toBeUndefined();
  });

  it('tabulates reliability: pairs, mean confidence and share true per band, and the calibration error', () => {
    const { bands, calibrationError } = reliability(pairs, 50);
    expect(bands).toEqual([
      { low: 0, high: 50, pairs: 1, meanConfidence: 10, shareTrue: 1 },
      { low: 50, high: 100, pairs: 5, meanConfidence: 82, shareTrue: 0.6 },
    ]);
    // (1 × |0.1 − 1| + 5 × |0.82 − 0.6|) / 6
    expect(calibrationError).toBeCloseTo((0.9 + 5 * 0.22) / 6, 10);
    expect(reliability([]).bands).toHaveLength(10);
    expect(reliability([{ confidence: 100, isMatch: true }]).bands[9]).toMatchObject({ pairs: 1, shareTrue: 1 });
  });
});

describe('fitCalibration', () => {
  it('recovers the slope and offset that generated the truths', () => {
    // Deterministic: at each x, the exact share of true pairs that σ(0.8·x + 1.5) gives, over 1,000 pairs.
    const points: Array<{ x: number; isMatch: boolean }> = [];
    for (let x = -12; x <= 12; x += 0.5) {
      const p = 1 / (1 + 2 ** -(0.8 * x + 1.5));
      const matches = Math.round(p * 1000);
      for (let k = 0; k < 1000; k++) points.push({ x, isMatch: k < matches });
    }
    const { slope, offset } = fitCalibration(points);
    expect(slope).toBeCloseTo(0.8, 2);
    expect(offset).toBeCloseTo(1.5, 2);
  });

  it('leaves evidence that is already calibrated alone (slope 1, offset 0)', () => {
    const points: Array<{ x: number; isMatch: boolean }> = [];
    for (let x = -8; x <= 8; x += 1) {
      const matches = Math.round(1000 / (1 + 2 ** -x));
      for (let k = 0; k < 1000; k++) points.push({ x, isMatch: k < matches });
    }
    const { slope, offset } = fitCalibration(points);
    expect(slope).toBeCloseTo(1, 2);
    expect(offset).toBeCloseTo(0, 2);
  });
});
