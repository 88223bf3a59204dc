import { describe, expect, it } from 'vitest';
import { generateHeldout, HELDOUT_KINDS, type HeldoutKind } from './heldout.ts';
import { fitCalibration } from './metrics.ts';
import { leaveOneSetOut, medianShare, type ZoneFigures, zoneFigures } from './zones.ts';

/** Each held-out set's zones, scored once for all the tests below. */
const figures = new Map<HeldoutKind, ZoneFigures>();
const zonesOf = (kind: HeldoutKind) => {
  let f = figures.get(kind);
  if (!f) {
    f = zoneFigures(generateHeldout(kind));
    figures.set(kind, f);
  }
  return f;
};

describe('the three zones as the service scores (issue 36)', () => {
  it('puts the clusters set’s partial names in review, mostly true, and review adds recall at a cost', () => {
    const f = zonesOf('clusters');
    expect(f.reachable).toBeLessThanOrEqual(f.truePairs);
    // Figures of 2026-11-27 (ADR 0022): auto precision 1.000, recall of reachable pairs with review from 50: 0.964.
    expect(f.auto.truePairs / f.auto.pairs).toBeGreaterThan(0.99);
    const autoRecall = f.auto.truePairs / f.reachable;
    const withReview = (f.auto.truePairs + f.review.truePairs) / f.reachable;
    expect(withReview).toBeGreaterThan(autoRecall + 0.15);
    expect(withReview).toBeGreaterThan(0.95);
    expect(f.classes.partialName.pairs).toBeGreaterThan(200);
    expect(f.classes.partialName.truePairs / f.classes.partialName.pairs).toBeGreaterThan(0.9);
    // Twins: one word against another is mostly two people here.
    expect(f.classes.loneWord.truePairs / f.classes.loneWord.pairs).toBeLessThan(0.5);
  });

  it('auto-links at 80 with precision ≥ 0.99 on every held-out set: namesakes, look-alike names and one-word names go to review', () => {
    let namesakes = 0;
    let trueNamesakes = 0;
    for (const kind of HELDOUT_KINDS) {
      const f = zonesOf(kind);
      // Figures of 2026-11-27: 0.998–1.000; 0.970–0.996 before unconfirmedDob and look-alike names.
      expect(f.auto.truePairs / f.auto.pairs, kind).toBeGreaterThanOrEqual(0.99);
      namesakes += f.classes.unconfirmedDob.pairs;
      trueNamesakes += f.classes.unconfirmedDob.truePairs;
    }
    // The names agreeing without a date of birth that confirms them are in review, many of them true.
    expect(namesakes).toBeGreaterThan(500);
    expect(trueNamesakes / namesakes).toBeGreaterThan(0.5);
  });

  it('takes the median of the sets’ shares, leaving out a set without such pairs', () => {
    const of = (pairs: number, truePairs: number) =>
      ({ classes: { partialName: { pairs, truePairs }, loneWord: { pairs: 0, truePairs: 0 } } }) as ZoneFigures;
    expect(medianShare([of(10, 1), of(10, 9), of(0, 0), of(10, 5)], 'partialName')).toBe(0.5);
    expect(medianShare([of(10, 2), of(10, 8)], 'partialName')).toBe(0.5);
    expect(medianShare([of(10, 2)], 'loneWord')).toBeUndefined();
  });
});

describe('leave one set out (issue 36, Deliver 3)', () => {
  it('fits each set’s calibration on the others only, and reports its calibration error and precision at 80', () => {
    const sets = (['typos', 'oneWord', 'clusters'] as const).map((kind) => ({
      name: kind,
      ...zonesOf(kind),
    }));
    const table = leaveOneSetOut(sets);
    expect(table.map((r) => r.name)).toEqual(['typos', 'oneWord', 'clusters']);
    // The fit for a set is the fit of the other two sets' points, never its own.
    expect(table[0]?.fitted).toEqual(fitCalibration([...sets[1]!.points, ...sets[2]!.points]));
    expect(table[0]?.fitted).not.toEqual(fitCalibration(sets.flatMap((s) => s.points)));
    for (const row of table) {
      expect(Number.isFinite(row.fitted.slope) && row.fitted.slope > 0).toBe(true);
      for (const e of [row.ece.service, row.ece.fitted]) expect(e >= 0 && e < 1).toBe(true);
      for (const q of [row.atLink.service, row.atLink.fitted]) {
        expect(q.precision).toBeGreaterThan(0.9);
        expect(q.recall).toBeGreaterThan(0.3);
      }
    }
  });
});
