import { REVIEW_CLASS_PRIOR } from '@nrad/matching';
import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import type { PossibleMatchDoc } from '../data/store.ts';
import { calibrateClasses, PRIOR_DECISIONS, reviewCeilings } from './review-classes.ts';

const decided = (
  uncertain: PossibleMatchDoc['uncertain'],
  kind: 'confirmed' | 'rejected' | null,
): PossibleMatchDoc => ({
  _id: new Types.ObjectId(),
  pairKey: String(Math.random()),
  recordIds: ['a', 'b'],
  organizations: ['BPS', 'FIA'],
  confidence: 60,
  matchCriteria: { suspectName: true, suspectDob: true, incidentDate: false, caseAmount: false },
  explanation: [],
  createdAt: new Date(),
  ...(uncertain ? { uncertain } : {}),
  decision: kind ? { kind, at: new Date(), byId: 'u', byOrganization: 'BPS', reason: '' } : null,
});

const band = { reviewThreshold: 50, linkThreshold: 80 };

describe('calibrateClasses (issue 36: calibration from labels)', () => {
  it('starts each class at its prior, kept within the band', () => {
    const classes = calibrateClasses([], band);
    expect(classes.map((c) => [c.uncertain, c.estimate, c.ceiling])).toEqual([
      ['partialName', REVIEW_CLASS_PRIOR.partialName, 79.99],
      // The median share true of one word against another is under 50: kept at the band's lower edge.
      ['loneWord', REVIEW_CLASS_PRIOR.loneWord, Math.max(50, REVIEW_CLASS_PRIOR.loneWord)],
      ['unconfirmedDob', REVIEW_CLASS_PRIOR.unconfirmedDob, REVIEW_CLASS_PRIOR.unconfirmedDob],
    ]);
    expect(reviewCeilings(classes)).toEqual({
      partialName: 79.99,
      loneWord: Math.max(50, REVIEW_CLASS_PRIOR.loneWord),
      unconfirmedDob: REVIEW_CLASS_PRIOR.unconfirmedDob,
    });
  });

  it('moves a class by its own decisions only (open pairs and pairs of no class count for nothing)', () => {
    const docs = [
      ...Array.from({ length: 30 }, () => decided('loneWord', 'rejected')),
      ...Array.from({ length: 10 }, () => decided('loneWord', 'confirmed')),
      decided('loneWord', null),
      decided(undefined, 'rejected'),
    ];
    const [partial, lone] = calibrateClasses(docs, band);
    expect(partial).toMatchObject({ labels: 0, estimate: REVIEW_CLASS_PRIOR.partialName });
    const expected = (1000 + PRIOR_DECISIONS * REVIEW_CLASS_PRIOR.loneWord) / (40 + PRIOR_DECISIONS);
    expect(lone).toMatchObject({ labels: 40, confirmed: 10 });
    expect(lone?.estimate).toBeCloseTo(expected, 2);
    expect(lone?.ceiling).toBe(50); // the estimate (34.0) is under the band: its pairs still go to review
  });

  it('has no ceiling without a band: the classes are then weighed as before issue 36', () => {
    const classes = calibrateClasses([], { reviewThreshold: 80, linkThreshold: 80 });
    expect(classes.every((c) => c.ceiling === null)).toBe(true);
    expect(reviewCeilings(classes)).toBeUndefined();
  });
});
