/**
 * The three zones as the linking service scores pairs (issue 36, ADR 0022): auto-links at
 * DEFAULT_THRESHOLD and above, possible matches from DEFAULT_REVIEW_THRESHOLD (and every pair of an
 * uncertain class from there, whatever its class's confidence), nothing below — with whole names,
 * the service's fixed weights with the date-of-birth levels it would take from its estimate of the
 * set (adoptableDobLevels), name-word frequencies and the prior estimated from the candidate pairs
 * (serviceOptions), each pair on its own. Per uncertain class, how many of its pairs score
 * from the review threshold up (their natural score, before the class's ceiling) and the share of
 * them that is true: what REVIEW_CLASS_PRIOR is the median of.
 */
import {
  adoptableDobLevels,
  CALIBRATION,
  type Calibration,
  candidatePairs,
  type DataDobLevel,
  DEFAULT_REVIEW_THRESHOLD,
  DEFAULT_THRESHOLD,
  DOB_WEIGHTS,
  estimateWeights,
  type MatchInput,
  pairWeight,
  prepareRecord,
  scorePrepared,
  UNCERTAIN_CLASSES,
  type UncertainClass,
  weightToConfidence,
  withDobLevels,
} from '@nrad/matching';
import { serviceOptions } from './febrl.ts';
import { truePairCount } from './heldout.ts';
import { fitCalibration, qualityAt, reliability, type ScoredPair } from './metrics.ts';

export interface ClassShare {
  /** The class's pairs scoring at least the review threshold (uncapped). */
  readonly pairs: number;
  /** Of them, records of one person. */
  readonly truePairs: number;
}

/** A pair that is no uncertain class: its evidence over the prior (W − P, bits) and its truth. */
export interface WeightPoint {
  readonly x: number;
  readonly isMatch: boolean;
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
  /** Every candidate pair that is no uncertain class, as calibration sees it (leaveOneSetOut). */
  readonly points: readonly WeightPoint[];
  /** The prior the set was scored at (estimated from its candidate pairs), bits. */
  readonly priorBits: number;
  /** The date-of-birth levels the service would take from its estimate of the set (adoptableDobLevels), bits. */
  readonly dobLevels: Partial<Record<DataDobLevel, number>>;
}

/** Scores every candidate pair of `raw` (one set, deduplicated) as the service would, into zones. */
export function zoneFigures(
  raw: ReadonlyArray<MatchInput & { readonly entity: string }>,
  thresholds = { link: DEFAULT_THRESHOLD, review: DEFAULT_REVIEW_THRESHOLD },
): ZoneFigures {
  const { records, pairs, options, dobLevels } = asTheServiceWithDobLevels(raw);
  const truePairs = truePairCount(raw);
  const priorBits = options.priorBits;
  const points: WeightPoint[] = [];
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
    if (!uncertain) points.push({ x: pairWeight(records[i]!, records[j]!, options) - priorBits, isMatch: truth });
    if (confidence < thresholds.review) continue;
    const zone = uncertain || confidence < thresholds.link ? band : auto;
    zone.pairs++;
    if (truth) zone.truePairs++;
    if (uncertain) {
      classes[uncertain].pairs++;
      if (truth) classes[uncertain].truePairs++;
    }
  }
  return { records: records.length, truePairs, reachable, auto, review: band, classes, points, priorBits, dobLevels };
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

export interface HeldOutCalibration {
  readonly name: string;
  /** The calibration fitted on every other set's points (Platt scaling in bits: fitCalibration). */
  readonly fitted: Calibration;
  /** Expected calibration error on this set (0–1): the service's calibration, and the one fitted on the others. */
  readonly ece: { readonly service: number; readonly fitted: number };
  /** Precision and recall (of its true pairs that are no uncertain class) at the link threshold, both ways. */
  readonly atLink: {
    readonly service: { readonly precision: number; readonly recall: number };
    readonly fitted: { readonly precision: number; readonly recall: number };
  };
}

/**
 * Leave one set out (issue 36, Deliver 3): for each set, the calibration fitted on all the others'
 * pairs (their evidence over each one's own prior), and on the set itself the expected calibration
 * error and the precision and recall at the link threshold — with the service's calibration and
 * with the one fitted without it.
 */
export function leaveOneSetOut(
  sets: ReadonlyArray<{ readonly name: string; readonly points: readonly WeightPoint[]; readonly priorBits: number }>,
  threshold: number = DEFAULT_THRESHOLD,
): HeldOutCalibration[] {
  return sets.map((held, k) => {
    const { priorBits } = held;
    const others = sets.flatMap((s, j) => (j === k ? [] : s.points));
    const fitted = fitCalibration(others);
    const scored = (calibration: Calibration): ScoredPair[] =>
      held.points.map((p) => ({
        confidence: weightToConfidence(p.x + priorBits, priorBits, calibration),
        isMatch: p.isMatch,
      }));
    const truePairs = held.points.filter((p) => p.isMatch).length;
    const at = (pairs: readonly ScoredPair[]) => {
      const q = qualityAt(pairs, truePairs, threshold);
      return { precision: q.precision, recall: q.recall };
    };
    const service = scored(CALIBRATION);
    const mine = scored(fitted);
    return {
      name: held.name,
      fitted,
      ece: { service: reliability(service).calibrationError, fitted: reliability(mine).calibrationError },
      atLink: { service: at(service), fitted: at(mine) },
    };
  });
}

/**
 * These records prepared, their candidate pairs and the options the service scores them with:
 * whole names, the records' own name-word frequencies and prior, every uncertain class asked for
 * with its ceiling at 100, so that each class pair keeps its natural score.
 */
function asTheService(raw: readonly MatchInput[]) {
  const records = raw.map((r) => prepareRecord(r));
  const { pairs } = candidatePairs(records);
  const review = Object.fromEntries(UNCERTAIN_CLASSES.map((c) => [c, 100]));
  return { records, pairs, options: { ...serviceOptions(records, pairs), wholeNames: true, review } };
}

/**
 * asTheService with the date-of-birth levels the service would take from its estimate of these
 * records (EM on them: adoptableDobLevels over the fixed weights, which keep their calibration).
 */
function asTheServiceWithDobLevels(raw: readonly MatchInput[]) {
  const prepared = asTheService(raw);
  const estimate = estimateWeights(prepared.records, prepared.pairs);
  const dobLevels = estimate ? adoptableDobLevels(estimate, DOB_WEIGHTS) : {};
  return { ...prepared, options: { ...prepared.options, weights: withDobLevels(undefined, dobLevels) }, dobLevels };
}

/**
 * The uncertain class the service's scorer puts each pair of these records in (undefined: none),
 * as zoneFigures scores them. For `linkage:service`, which counts how much of the truth is of a
 * class (never auto-linked) and how much of the rest auto-linking found. The service judges a
 * pair with its index's frequencies at the time; these are the frequencies of all the records, so
 * a pair near the look-alike names' bounds may be judged otherwise.
 */
export function uncertainClassOf(raw: readonly MatchInput[]): (i: number, j: number) => UncertainClass | undefined {
  const { records, options } = asTheService(raw);
  return (i, j) => scorePrepared(records[i]!, records[j]!, options).uncertain;
}
