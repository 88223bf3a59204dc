import { describe, expect, it } from 'vitest';
import { generateHeldout } from './heldout.ts';
import { medianShare, type ZoneFigures, zoneFigures } from './zones.ts';

describe('the three zones as the service scores (issue 36)', () => {
  it('puts the clusters set’s partial names in review, mostly true, and review adds recall at a cost', () => {
    const f = zoneFigures(generateHeldout('clusters'));
    expect(f.reachable).toBeLessThanOrEqual(f.truePairs);
    // Figures of 2026-11-27 (ADR 0022): auto precision 0.993, recall of reachable pairs with review from 50: 0.964.
    expect(f.auto.truePairs / f.auto.pairs).toBeGreaterThan(0.98);
    const autoRecall = f.auto.truePairs / f.reachable;
    const withReview = (f.auto.truePairs + f.review.truePairs) / f.reachable;
    expect(withReview).toBeGreaterThan(autoRecall + 0.15);
    expect(withReview).toBeGreaterThan(0.95);
    expect(f.classes.partialName.pairs).toBeGreaterThan(200);
    expect(f.classes.partialName.truePairs / f.classes.partialName.pairs).toBeGreaterThan(0.9);
    // Twins: one word against another is mostly two people here.
    expect(f.classes.loneWord.truePairs / f.classes.loneWord.pairs).toBeLessThan(0.5);
  });

  it('takes the median of the sets’ shares, leaving out a set without such pairs', () => {
    const of = (pairs: number, truePairs: number) =>
      ({ classes: { partialName: { pairs, truePairs }, loneWord: { pairs: 0, truePairs: 0 } } }) as ZoneFigures;
    expect(medianShare([of(10, 1), of(10, 9), of(0, 0), of(10, 5)], 'partialName')).toBe(0.5);
    expect(medianShare([of(10, 2), of(10, 8)], 'partialName')).toBe(0.5);
    expect(medianShare([of(10, 2)], 'loneWord')).toBeUndefined();
  });
});
