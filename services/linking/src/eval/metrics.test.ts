import { describe, expect, it } from 'vitest';
import { bestRecallAtPrecision, qualityAt } from './metrics.ts';

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
});
