/**
 * Estimated level weights the scorer may adopt, and the prior for an estimated match rate: the rules
 * the linking service applies to its own estimate (services/linking, domain/match-rate.ts). Pure
 * functions. Six levels are taken from an estimate — name exact, typo and conflict, date of birth
 * exact, slip and mismatch (keyWeights) — over the fixed weights of the rarer ones. The six are
 * adopted only when plausible; otherwise the fixed weights (weights.ts NAME_WEIGHTS, DOB_WEIGHTS,
 * with CALIBRATION) stay. Plausible (implausibility says which rule failed):
 * - at least MIN_FREQUENCY_RECORDS named records, and both EM sessions of at least
 *   MIN_SESSION_PAIRS pairs (estimateWeights gives nothing otherwise);
 * - each session found at least MIN_SESSION_MATCHES matches (its match share × its pairs): in a
 *   session whose pairs are all two people (no duplicates across the agencies, as the benchmark's
 *   random records) EM fits m to the noise and the starting shape;
 * - the levels in the order of the evidence they are: name exact > typo > 0 > conflict and date of
 *   birth exact > slip > 0 > mismatch, and no other level (at its fixed weight) over a typo or a
 *   slip. One inversion is repaired rather than refused (adoptableWeights): a typo weighing as much
 *   as an exact word, or up to TYPO_OVER_EXACT_SLACK more, is put TYPO_UNDER_EXACT under it. In
 *   log2(m / u) a typo can outweigh an exact word where typos are many and names one letter apart
 *   few (FEBRL 2: 7.50 against 7.31 here, 7.64 against 7.32 in link-csv's estimate of the whole
 *   file), but a misspelt name must not weigh more than the right one in a link shown to a user,
 *   and taking the typo down only makes links harder;
 * - each of the six within MAX_WEIGHT_SHIFT bits of its fixed weight (estimated on FEBRL 1–3).
 *   The exact date of birth moves most with the data (it is about log2 of the days births spread
 *   over: 10.1 to 12.5 bits on FEBRL 1–3 against 14.5 fixed); further than that is a fit gone wrong
 *   rather than another population, and beyond what EM_CALIBRATION, fitted on FEBRL's estimates,
 *   can be trusted for.
 * Apart from the six, the date-of-birth levels of DATA_DOB_LEVELS are taken on their own evidence
 * (adoptableDobLevels), whether the six are adopted or not.
 */
import { MIN_SESSION_PAIRS, type WeightEstimate } from './em.ts';
import { MIN_ESTIMATED_PRIOR_BITS } from './prior.ts';
import { priorBitsFor } from './scorer.ts';
import { CALIBRATION, DOB_WEIGHTS, type DobLevel, type LevelWeights, NAME_WEIGHTS } from './weights.ts';

/** Fewest matches each EM session must find for its weights to be adopted (see the header). */
export const MIN_SESSION_MATCHES = 50;
/** Furthest an adopted key weight may be from its fixed weight, in bits (see the header). */
export const MAX_WEIGHT_SHIFT = 5;
/** The most an estimated typo may weigh over an exact agreement and still be repaired (bits; see the header). */
export const TYPO_OVER_EXACT_SLACK = 0.5;
/** How far under the exact weight a repaired typo is put (bits). */
export const TYPO_UNDER_EXACT = 0.25;

/**
 * The prior (ScoreOptions.priorBits) for a search of `size` records in which a record is expected
 * to have `matchesPerRecord` matches: log2(size / r). With r `estimated` from the data that is the
 * prior (at least MIN_ESTIMATED_PRIOR_BITS); with r assumed (1, too few records to estimate it) it
 * is never under PRIOR_BITS, and with r = 1 exactly priorBitsFor(size). The floor of 13 bits once
 * guarded log2(N) on small sets; kept for an estimated r it made the service under-confident
 * below some 8,000 records per agency (FEBRL 1–3 spread over three agencies: pairs shown at 10–20%
 * were 34% true, at 80–90% 96%; expected calibration error 2.0 points, 0.5 without the floor).
 */
export function priorBitsForRate(size: number, matchesPerRecord: number, estimated = false): number {
  if (!estimated) return priorBitsFor(size / matchesPerRecord);
  return Math.max(MIN_ESTIMATED_PRIOR_BITS, Math.log2(Math.max(1, size) / matchesPerRecord));
}

/** The six weights an estimate sets, the plausibility rules check and the log shows (undefined: the fixed ones). */
export function keyWeights(weights: LevelWeights | undefined) {
  const name = weights?.name ?? NAME_WEIGHTS;
  const dob = weights?.dob ?? DOB_WEIGHTS;
  return {
    name: { exact: name.exact, typo: name.typo, conflict: name.conflict },
    dob: { exact: dob.exact, slip: dob.slip, mismatch: dob.mismatch },
  };
}

/**
 * The weights the service would score with from an estimate (see the header): its six key weights
 * over the fixed weights of the other levels, a typo as heavy as an exact agreement (or up to
 * TYPO_OVER_EXACT_SLACK heavier) put TYPO_UNDER_EXACT under it.
 */
export function adoptableWeights(estimated: LevelWeights): LevelWeights {
  const { name, dob } = keyWeights(estimated);
  const inverted = name.typo >= name.exact && name.typo <= name.exact + TYPO_OVER_EXACT_SLACK;
  const typo = inverted ? name.exact - TYPO_UNDER_EXACT : name.typo;
  return { name: { ...NAME_WEIGHTS, ...name, typo }, dob: { ...DOB_WEIGHTS, ...dob } };
}

/** Whether `w` is strictly decreasing: the levels in the order of the evidence they are. */
const decreasing = (w: readonly number[]) => w.every((x, k) => k === 0 || x < (w[k - 1] as number));

/** The first level of `levels` that weighs more than `top`. */
const over = (levels: Readonly<Record<string, number>>, top: number) =>
  Object.keys(levels).find((k) => levels[k]! > top);

/** The first level of `weights` further than MAX_WEIGHT_SHIFT from its weight in `fixed`. */
const shifted = (weights: Readonly<Record<string, number>>, fixed: Readonly<Record<string, number>>) =>
  Object.keys(weights).find((k) => Math.abs(weights[k]! - fixed[k]!) > MAX_WEIGHT_SHIFT);

/**
 * Why `weights` (adoptableWeights of the estimate) are not plausible (see the header), or
 * undefined when they are. The reasons name levels and figures only, never a record.
 */
export function implausibility(estimate: WeightEstimate, weights: LevelWeights): string | undefined {
  for (const [field, session] of Object.entries(estimate.sessions)) {
    const matches = session.matchShare * session.pairs;
    if (session.pairs < MIN_SESSION_PAIRS) return `the ${field} session has ${session.pairs} pairs`;
    if (matches < MIN_SESSION_MATCHES) return `the ${field} session found ${matches.toFixed(1)} matches`;
  }
  const { name, dob } = weights;
  if (!decreasing([name.exact, name.typo, 0, name.conflict])) return 'name levels not exact > typo > 0 > conflict';
  if (!decreasing([dob.exact, dob.slip, 0, dob.mismatch]))
    return 'date-of-birth levels not exact > slip > 0 > mismatch';
  const { exact: _exactName, typo, ...otherName } = name;
  const { exact: _exactDob, slip, ...otherDob } = dob;
  const overTypo = over(otherName, typo);
  if (overTypo) return `name level ${overTypo} weighs more than a typo`;
  const overSlip = over(otherDob, slip);
  if (overSlip) return `date-of-birth level ${overSlip} weighs more than a slip`;
  const key = keyWeights(weights);
  const fixed = keyWeights(undefined);
  for (const field of ['name', 'dob'] as const) {
    const level = shifted(key[field], fixed[field]);
    if (level) return `${field} ${level} more than ${MAX_WEIGHT_SHIFT} bits from its fixed weight`;
  }
  return undefined;
}

/**
 * The date-of-birth levels whose weight says how a population's dates go wrong rather than how
 * often two people share one (issue 36): dates weeks apart (`near`) and two of year, month and day
 * agreeing with the third another value altogether (`twoParts`). On FEBRL 1–3 such a pair is
 * almost never one person (a whole part replaced is rare there; the fixed weights, −4 and 0, were
 * chosen on it), while where a clerk retypes a year or a month wholesale it is strong evidence
 * (EM over our held-out sets: +3.2 to +4.9 bits for two parts agreeing, +1.5 to +3.5 for near). A
 * pair at either level is never linked automatically whatever it weighs (the `unconfirmedDob`
 * class: its dates disagree), so its weight decides only whether it reaches the review band and
 * how it is shown there.
 */
export const DATA_DOB_LEVELS = ['near', 'twoParts'] as const satisfies readonly DobLevel[];
export type DataDobLevel = (typeof DATA_DOB_LEVELS)[number];

/**
 * Fewest matches the date-of-birth session must have found at a DATA_DOB_LEVELS level (its m × the
 * session's matches) for its estimate to be taken: a level seen in one or two true pairs swings by
 * several bits between files alike (FEBRL 1–3: two parts agreeing −3.2 to +1.0 bits on 0.5 to 6 of them).
 */
export const MIN_LEVEL_MATCHES = 5;
/** How far under the slip in use an adopted DATA_DOB_LEVELS level is put at most (bits): never as telling as one slip. */
export const UNDER_SLIP = 0.25;

/**
 * The DATA_DOB_LEVELS weights to take from `estimate`, given the date-of-birth weights in use
 * (`dob`: adopted or fixed): each level the date-of-birth session found at least MIN_LEVEL_MATCHES
 * matches at, its estimate put between the mismatch in use and UNDER_SLIP under the slip in use.
 * None when that session is too small to be adopted at all (MIN_SESSION_PAIRS pairs,
 * MIN_SESSION_MATCHES matches) or its own levels are out of order (exact > slip > 0 > mismatch: a
 * fit gone wrong). Independent of the name session, whose plausibility does not touch these.
 */
export function adoptableDobLevels(
  estimate: WeightEstimate,
  dob: Readonly<Record<DobLevel, number>>,
): Partial<Record<DataDobLevel, number>> {
  const session = estimate.sessions.dob;
  const matches = session.matchShare * session.pairs;
  const fit = estimate.weights.dob;
  if (session.pairs < MIN_SESSION_PAIRS || matches < MIN_SESSION_MATCHES) return {};
  if (!decreasing([fit.exact, fit.slip, 0, fit.mismatch])) return {};
  const levels: Partial<Record<DataDobLevel, number>> = {};
  for (const level of DATA_DOB_LEVELS) {
    if (estimate.m.dob[level] * matches < MIN_LEVEL_MATCHES) continue;
    levels[level] = Math.max(dob.mismatch, Math.min(fit[level], dob.slip - UNDER_SLIP));
  }
  return levels;
}

/**
 * `weights` (undefined: the fixed ones) with the date-of-birth `levels` adopted over them. The
 * fixed weights with only such levels estimated keep the fixed weights' calibration (CALIBRATION):
 * the levels they change are never linked automatically, and the rest is what it was fitted for.
 */
export function withDobLevels(
  weights: LevelWeights | undefined,
  levels: Partial<Record<DataDobLevel, number>>,
): LevelWeights | undefined {
  if (Object.keys(levels).length === 0) return weights;
  if (weights) return { ...weights, dob: { ...weights.dob, ...levels } };
  return { name: NAME_WEIGHTS, dob: { ...DOB_WEIGHTS, ...levels }, calibration: CALIBRATION };
}
