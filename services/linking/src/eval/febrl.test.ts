import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { candidatePairs } from '../matching/blocking.ts';
import { nameFrequencies } from '../matching/compare.ts';
import { DEFAULT_THRESHOLD, prepareRecord, priorBitsFor, scorePrepared } from '../matching/scorer.ts';
import { linkageDataDir, loadFebrl } from './febrl.ts';
import { bestRecallAtPrecision, qualityAt } from './metrics.ts';

const dir = linkageDataDir();
const present = existsSync(path.join(dir, 'dataset4a.csv')) && existsSync(path.join(dir, 'dataset4b.csv'));

// The quality bar of `npm run linkage:eval`, kept by a test (skipped where shared/ is absent).
describe.skipIf(!present)('FEBRL 4 linkage quality', () => {
  it('reaches recall ≥ 0.95 at precision ≥ 0.99 on name and date of birth alone', () => {
    const rawA = loadFebrl(path.join(dir, 'dataset4a.csv'), 'A');
    const rawB = loadFebrl(path.join(dir, 'dataset4b.csv'), 'B');
    const a = rawA.map((r) => prepareRecord(r));
    const b = rawB.map((r) => prepareRecord(r));
    const options = {
      frequencies: nameFrequencies([...a, ...b].map((r) => r.name)),
      priorBits: priorBitsFor(5000),
    };
    const { pairs } = candidatePairs(a, b);
    expect(pairs.length).toBeLessThan(30_000); // 0.12% of the 25,000,000 pairs
    const scored = pairs.map(([i, j]) => ({
      confidence: scorePrepared(a[i]!, b[j]!, options).confidence,
      isMatch: rawA[i]!.entity === rawB[j]!.entity,
    }));
    const best = bestRecallAtPrecision(scored, 5000, 0.99);
    expect(best?.recall).toBeGreaterThanOrEqual(0.95);
    const atDefault = qualityAt(scored, 5000, DEFAULT_THRESHOLD);
    expect(atDefault.precision).toBeGreaterThanOrEqual(0.99);
    expect(atDefault.recall).toBeGreaterThanOrEqual(0.95);
  });
});
