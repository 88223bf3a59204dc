/**
 * Fellegi–Sunter weights: for each comparison level, log2(m / u), where m is how often a true match
 * shows that level and u how often two different people do. A missing value weighs 0 (no evidence).
 *
 * Name and date-of-birth weights were estimated on FEBRL data sets 1–3 (deduplication sets, 11,000
 * records, ground truth from rec_id) by `tools/linkage/bin/linkage-tune.ts`, then rounded; FEBRL 4
 * (the evaluation pair) was not used. Two levels FEBRL never produces for the same person (letters
 * scrambled, a date of birth weeks off) are set by judgment — 'scrambled' weighs as 'similar', a
 * 'near' date of birth weighs nothing — and change no FEBRL figure (ADR 0007 lists the check on
 * other public sets). Incident-date and amount weights are set by judgment (FEBRL has neither
 * field): they are deliberately small, so they can tip a borderline name + DOB pair but never make
 * a link on their own, and they do not count when the dates of birth disagree (scorer.ts).
 */

/** Levels of one aligned pair of name words (see compareNames). */
export type TokenLevel = 'exact' | 'typo' | 'phonetic' | 'similar' | 'scrambled' | 'initial' | 'conflict';

export const NAME_WEIGHTS: Readonly<Record<TokenLevel, number>> = {
  /** Same word. */
  exact: 7.5,
  /** One letter inserted, deleted, changed, or two neighbours swapped. */
  typo: 6.5,
  /** Same Double Metaphone code (Thompson / Tomson). */
  phonetic: 2.0,
  /** Jaro–Winkler ≥ SIMILAR_JW, or one word the start of the other (Chris / Christopher). */
  similar: 3.5,
  /** The same letters in another order, perhaps one letter missing (Ehtan / Ethan, Msorri / Morris). */
  scrambled: 3.5,
  /** An initial against a word with that first letter, or against the same initial. */
  initial: 2.5,
  /** Both names have a word here, and they disagree. */
  conflict: -3.0,
};

/**
 * Subtracted from an agreeing pair of words in different parts of their names (a given name
 * against a surname) when both names came with their parts apart: the parts swapped, or a word in
 * the wrong field, is a real pattern but weaker evidence than agreement in the same part.
 */
export const CROSS_ROLE_PENALTY = 0.5;

/** Levels of the date-of-birth comparison. */
export type DobLevel = 'exact' | 'slip' | 'near' | 'twoParts' | 'impossible' | 'mismatch';

/** Weights in bits per level, in place of NAME_WEIGHTS and DOB_WEIGHTS, estimated by em.ts (ScoreOptions.weights). */
export interface LevelWeights {
  readonly name: Readonly<Record<TokenLevel, number>>;
  readonly dob: Readonly<Record<DobLevel, number>>;
  /**
   * The calibration to score them with: EM_CALIBRATION (fitted on EM's estimates of FEBRL 1–3)
   * when absent. The fixed weights with only a date-of-birth level estimated keep CALIBRATION
   * (adoption.ts: withDobLevels).
   */
  readonly calibration?: Calibration;
}

export const DOB_WEIGHTS: Readonly<Record<DobLevel, number>> = {
  exact: 14.5,
  /** One slip: a digit changed, neighbouring digits swapped, day and month swapped, ±1 in one part. */
  slip: 3.5,
  /**
   * Not the same and not one slip, but at most NEAR_DOB_DAYS apart (a day and a month both wrong,
   * a date approximated): neither for nor against.
   */
  near: 0,
  /**
   * Two of year, month and day agree and the third is another value altogether (a whole part
   * replaced). Weighed as a disagreement: on FEBRL 1–3 counting it as neutral let in more
   * false links (FEBRL 2 precision 0.9878 → 0.9845) than true ones; its own level lets estimated
   * weights tell it apart later.
   */
  twoParts: -4.0,
  /**
   * One date impossible as written (month 13, day 42) and not one slip of the other: it is known to
   * be wrong, so it is neither for nor against.
   */
  impossible: 0,
  mismatch: -4.0,
};
/** How far apart (in days) two dates of birth may be to count as 'near' rather than a mismatch. */
export const NEAR_DOB_DAYS = 92;

/** Incident-date closeness: [largest difference in days, weight], first that fits. */
export const INCIDENT_DATE_WEIGHTS: ReadonlyArray<readonly [maxDays: number, weight: number]> = [
  [0, 3.0],
  [3, 2.0],
  [30, 1.0],
  [365, 0],
  [Number.POSITIVE_INFINITY, -1.5],
];

/** Case-amount closeness: [largest relative difference, weight], first that fits. */
export const AMOUNT_WEIGHTS: ReadonlyArray<readonly [maxRelative: number, weight: number]> = [
  [0.005, 2.5],
  [0.05, 1.5],
  [0.25, 0.5],
  [Number.POSITIVE_INFINITY, -1.0],
];

/** Jaro–Winkler similarity from which two words count as 'similar'. */
export const SIMILAR_JW = 0.88;
/** Jaro–Winkler similarity two words need besides a shared Double Metaphone code to be 'phonetic'. */
export const PHONETIC_MIN_JW = 0.75;

/**
 * Prior log2-odds against a match: the total weight at which confidence is 50. Confidence is the
 * posterior match probability for a prior of 1 in 2^PRIOR_BITS, rescaled so no evidence gives 0.
 */
export const PRIOR_BITS = 13;

/** A calibration of log-odds x (bits) before they become a confidence: σ(slope · x + offset). */
export interface Calibration {
  readonly slope: number;
  readonly offset: number;
}

/**
 * The calibration of the fixed weights: Platt scaling fitted on FEBRL 1–3's candidate pairs, each
 * scored as the service scores (fixed weights, name-word frequencies) with the prior estimated from
 * its file: slope 0.997, offset 1.39 when chosen (bin/linkage-tune.ts prints today's fit: slope
 * 0.964, offset 1.59, the pairs without agreeing names now capped lower). The weights understate
 * the odds of a match by about 2^1.4: pairs shown at 20–30% were 68% true before it.
 */
export const CALIBRATION: Calibration = { slope: 1, offset: 1.4 };

/**
 * The calibration of weights estimated by EM (em.ts), fitted the same way on FEBRL 1–3 with the
 * weights EM estimates from each file (slope 0.935, offset 1.79 when chosen; linkage-tune prints
 * today's: 0.910, 1.79). Its middle bands stay over-confident (40–50%: 24% true on FEBRL 1–3).
 */
export const EM_CALIBRATION: Calibration = { slope: 0.94, offset: 1.8 };

/**
 * Word-frequency adjustment (used when the caller supplies name-word frequencies): an exact or
 * typo agreement gains log2(REFERENCE_WORD_SHARE / share) bits, share being the more common of the
 * two words' shares of named records, clamped to [−MAX_FREQUENCY_PENALTY, +MAX_FREQUENCY_BONUS].
 * REFERENCE_WORD_SHARE is the share at which the fixed weight holds (estimated on FEBRL 1–3).
 */
export const REFERENCE_WORD_SHARE = 0.004;
export const MAX_FREQUENCY_BONUS = 5;
export const MAX_FREQUENCY_PENALTY = 3;
/**
 * A word at most this common (one named record in 1,000) is rare enough to carry a link beside a
 * disagreeing word (scorer.ts: loneAgreement).
 */
export const RARE_WORD_SHARE = 0.001;
/** Shares below this are treated as this (one record in 20,000). */
export const MIN_WORD_SHARE = 0.00005;
/** Frequencies from fewer named records than this are not used. */
export const MIN_FREQUENCY_RECORDS = 1000;

/**
 * A link needs the names to agree at least in part: when the name weighs nothing or less (missing,
 * a placeholder, or disagreeing), the total weight is capped here, below the default threshold,
 * so a shared date of birth (plus incident date and amount) alone never makes a link.
 */
export const MAX_WEIGHT_WITHOUT_NAME = 9;
