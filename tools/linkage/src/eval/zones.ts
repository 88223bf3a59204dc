/**
 * The three zones as the linking service scores pairs (issue 36, ADR 0022): auto-links at
 * DEFAULT_THRESHOLD and above, possible matches from DEFAULT_REVIEW_THRESHOLD (and every pair of an
 * uncertain class from there, whatever its class's confidence), nothing below — with whole names,
 * the service's fixed weights, name-word frequencies and the prior estimated from the candidate
 * pairs (serviceOptions), each pair on its own. Per uncertain class, how many of its pairs score
 * from the review threshold up (their natural score, before the class's ceiling) and the share of
 * them that is true: what REVIEW_CLASS_PRIOR is the median of.
 */
import {
  candidatePairs,
  DEFAULT_REVIEW_THRESHOLD,
  DEFAULT_THRESHOLD,
  type MatchInput,
  prepareRecord,
  scorePrepared,
  UNCERTAIN_CLASSES,
  type UncertainClass,
} from '@nrad/matching';
import { serviceOptions } from './febrl.ts';
import { truePairCount } from './heldout.ts';

export interface ClassShare {
  /** The class's pairs scoring at least the review threshold (uncapped). */
  readonly pairs: number;
  /** Of them, records of one person. */
  readonly truePairs: number;
}

export interface ZoneFigures {
  readonly records: number;
  /** Pairs of records of one person. */
  readonly truePairs: number;
  /** True pairs that blocking makes candidates (the most any zone can hold). */
  readonly reachable: number;
  readonly auto: { readonly pairs: number; readonly truePairs: number };
  readonly review: { readonly pairs: number; readonly truePairs: number };
  readonly classes: Readonly<Record<UncertainClass, ClassShare>>;
}

/** Scores every candidate pair of `raw` (one set, deduplicated) as the service would, into zones. */
export function zoneFigures(
  raw: ReadonlyArray<MatchInput & { readonly entity: string }>,
  thresholds = { link: DEFAULT_THRESHOLD, review: DEFAULT_REVIEW_THRESHOLD },
): ZoneFigures {
  const records = raw.map((r) => prepareRecord(r));
  const truePairs = truePairCount(raw);
  const { pairs } = candidatePairs(records);
  // Ceilings at 100: each class pair keeps its natural score (which decides its zone here).
  const review = Object.fromEntries(UNCERTAIN_CLASSES.map((c) => [c, 100]));
  const options = { ...serviceOptions(records, pairs), wholeNames: true, review };
  const classes = Object.fromEntries(UNCERTAIN_CLASSES.map((c) => [c, { pairs: 0, truePairs: 0 }])) as Record<
    UncertainClass,
    { pairs: number; truePairs: number }
  >;
  const auto = { pairs: 0, truePairs: 0 };
  const band = { pairs: 0, truePairs: 0 };
  let reachable = 0;
  for (const [i, j] of pairs) {
    const truth = raw[i]!.entity === raw[j]!.entity;
    if (truth) reachable++;
    const { confidence, uncertain } = scorePrepared(records[i]!, records[j]!, options);
    if (confidence < thresholds.review) continue;
    const zone = uncertain || confidence < thresholds.link ? band : auto;
    zone.pairs++;
    if (truth) zone.truePairs++;
    if (uncertain) {
      classes[uncertain].pairs++;
      if (truth) classes[uncertain].truePairs++;
    }
  }
  return { records: records.length, truePairs, reachable, auto, review: band, classes };
}

/** The median of the shares true of each set's class pairs (sets without such pairs left out). */
export function medianShare(figures: readonly ZoneFigures[], uncertain: UncertainClass): number | undefined {
  const shares = figures
    .map((f) => f.classes[uncertain])
    .filter((c) => c.pairs > 0)
    .map((c) => c.truePairs / c.pairs)
    .sort((x, y) => x - y);
  if (shares.length === 0) return undefined;
  const mid = Math.floor(shares.length / 2);
  return shares.length % 2 === 1 ? shares[mid] : ((shares[mid - 1] as number) + (shares[mid] as number)) / 2;
}
