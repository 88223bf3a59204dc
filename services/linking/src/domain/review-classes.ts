import { REVIEW_CLASS_PRIOR, type ReviewCeilings, UNCERTAIN_CLASSES, type UncertainClass } from '@nrad/matching';
import type { PossibleMatchDoc } from '../data/store.ts';

/**
 * How many decisions the prior (REVIEW_CLASS_PRIOR) counts as: with 20 decisions of a class, its
 * confidence is half its prior and half what the investigators decided.
 */
export const PRIOR_DECISIONS = 20;

/** An uncertain class's confidence in force, and what it rests on (ADMIN's figures). */
export interface ClassCalibration {
  readonly uncertain: UncertainClass;
  /** Decided possible matches of the class. */
  readonly labels: number;
  readonly confirmed: number;
  /** REVIEW_CLASS_PRIOR's share (%), what the class starts at. */
  readonly prior: number;
  /** (confirmed + PRIOR_DECISIONS · prior) / (labels + PRIOR_DECISIONS), in % (two decimals). */
  readonly estimate: number;
  /**
   * The most confidence a pair of the class is shown with (ScoreOptions.review): the estimate kept
   * within the review band — at least REVIEW_THRESHOLD (such pairs go to review, never hidden), under
   * LINK_THRESHOLD (never linked automatically). Null when the band is empty (REVIEW_THRESHOLD =
   * LINK_THRESHOLD): the class is then not shown, as before issue 36.
   */
  readonly ceiling: number | null;
}

/** The hundredth under `x` (the highest confidence under LINK_THRESHOLD). */
const justUnder = (x: number) => Math.round(x * 100 - 1) / 100;
const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * Each uncertain class's confidence from the decided possible matches of that class (issue 36:
 * calibration from labels): a share estimated with the prior as PRIOR_DECISIONS decisions, kept
 * within [reviewThreshold, linkThreshold).
 */
export function calibrateClasses(
  decided: Iterable<PossibleMatchDoc>,
  band: { readonly reviewThreshold: number; readonly linkThreshold: number },
): ClassCalibration[] {
  const counts = new Map<UncertainClass, { labels: number; confirmed: number }>();
  for (const doc of decided) {
    if (!doc.uncertain || !doc.decision) continue;
    const c = counts.get(doc.uncertain) ?? { labels: 0, confirmed: 0 };
    c.labels++;
    if (doc.decision.kind === 'confirmed') c.confirmed++;
    counts.set(doc.uncertain, c);
  }
  const open = band.reviewThreshold < band.linkThreshold;
  return UNCERTAIN_CLASSES.map((uncertain) => {
    const { labels, confirmed } = counts.get(uncertain) ?? { labels: 0, confirmed: 0 };
    const prior = REVIEW_CLASS_PRIOR[uncertain];
    const estimate = round2((100 * confirmed + PRIOR_DECISIONS * prior) / (labels + PRIOR_DECISIONS));
    const ceiling = open ? Math.min(justUnder(band.linkThreshold), Math.max(band.reviewThreshold, estimate)) : null;
    return { uncertain, labels, confirmed, prior, estimate, ceiling };
  });
}

/** The ceilings in force (ScoreOptions.review), or undefined when the band is empty. */
export function reviewCeilings(classes: readonly ClassCalibration[]): ReviewCeilings | undefined {
  const entries = classes.flatMap((c) => (c.ceiling === null ? [] : [[c.uncertain, c.ceiling] as const]));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
