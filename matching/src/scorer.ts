/**
 * The record-link scorer: compares two records' suspect name, suspect date of birth, incident
 * date and case amount, and returns a confidence (0–100, two decimals), the SPEC §3 matchCriteria
 * flags, and an explanation whose per-field contributions add up to the confidence exactly.
 *
 * Method: Fellegi–Sunter. Each field's comparison level has a weight log2(m/u) (weights.ts, or
 * estimated from the data: em.ts); a missing or placeholder value weighs 0. The total weight W maps
 * to
 *   confidence = 100 · (σ(s(W − P) + o) − σ(o − sP)) / (1 − σ(o − sP)),  σ(x) = 1/(1+2^−x),
 * floored at 0: the posterior match probability for a prior of 1 in 2^P (PRIOR_BITS = 13 unless
 * the caller passes priorBits: priorBitsFor(size of the set searched), or estimatePrior),
 * calibrated on FEBRL 1–3 (weightToConfidence: CALIBRATION, EM_CALIBRATION), rescaled so that no
 * evidence (W = 0) gives 0. Without any agreement of the names, W is capped well below
 * the threshold (MAX_WEIGHT_WITHOUT_NAME, lower at a low prior). Incident date and amount only corroborate the person: when
 * the dates of birth disagree, their agreement weighs 0. Each field's contribution is its share of
 * the confidence in proportion to its weight (signed), rounded to hundredths so that the shares add
 * up exactly.
 */
import {
  compareAmounts,
  compareDobs,
  compareIncidentDates,
  compareNames,
  type DobComparison,
  type NameComparison,
  type NameFrequencies,
  type NamePair,
} from './compare.ts';
import {
  type DayMonthOrder,
  hasName,
  type PreparedDate,
  type PreparedName,
  parseDate,
  parseDobDigits,
  prepareAmount,
  prepareName,
  prepareNameParts,
} from './normalize.ts';
import {
  CALIBRATION,
  type Calibration,
  EM_CALIBRATION,
  type LevelWeights,
  MAX_WEIGHT_WITHOUT_NAME,
  PRIOR_BITS,
  RARE_WORD_SHARE,
} from './weights.ts';

/** The fields of a record the scorer reads. */
export interface MatchInput {
  readonly id: string;
  /** The record's agency (BPS, FIA, CUS). Records of one organization are never matched. */
  readonly organization?: string | null;
  /** The full name, any word order. Or give `givenName` and `surname` (joined if both are given). */
  readonly suspectName?: string | null;
  readonly givenName?: string | null;
  readonly surname?: string | null;
  /** 'YYYY-MM-DD' (also accepted: YYYYMMDD, DD/MM/YYYY). */
  readonly suspectDob?: string | null;
  /** 'YYYY-MM-DD' (also accepted: YYYYMMDD, DD/MM/YYYY). */
  readonly incidentDate?: string | null;
  /**
   * In currency units (1234.5 or "1234.50"); only the ratio of two amounts counts, so cents work
   * equally if both sides use them. 0, negative or unparsable: missing.
   */
  readonly caseAmount?: number | string | null;
}

/** A record normalized once for many comparisons (prepareRecord). */
export interface PreparedRecord {
  readonly id: string;
  readonly organization?: string;
  readonly name: PreparedName;
  readonly dob?: PreparedDate;
  readonly incidentDate?: PreparedDate;
  readonly caseAmount?: number;
}

export type MatchField = 'suspectName' | 'suspectDob' | 'incidentDate' | 'caseAmount';
export const MATCH_FIELDS: readonly MatchField[] = ['suspectName', 'suspectDob', 'incidentDate', 'caseAmount'];

export type FieldStatus = 'match' | 'partial' | 'mismatch' | 'missing';

export interface FieldExplanation {
  readonly field: MatchField;
  readonly status: FieldStatus;
  /** Signed share of the confidence, in points (two decimals); the four add up to the confidence. */
  readonly contribution: number;
  /** The Fellegi–Sunter weight in bits (log2 likelihood ratio), two decimals; 0 when missing. */
  readonly weight: number;
  readonly detail?: string;
}

/** The SPEC §3 matchCriteria: a flag is set when the field counts for the match (weight > 0). */
export type MatchCriteria = Record<MatchField, boolean>;

export interface MatchResult {
  /** 0–100, two decimals. */
  readonly confidence: number;
  readonly matchCriteria: MatchCriteria;
  readonly explanation: readonly FieldExplanation[];
  /** Set when the pair may never match (confidence 0): the same record, or the same organization. */
  readonly excluded?: 'same record' | 'same organization';
  /**
   * The pair's uncertain class, when ScoreOptions.review weighed it as one (its confidence at most
   * that class's): never linked automatically, proposed for review.
   */
  readonly uncertain?: UncertainClass;
}

/**
 * The confidence from which a pair is a match. Chosen on FEBRL 1–3 (not on the evaluation pair,
 * FEBRL 4) once the confidence was calibrated (CALIBRATION, EM_CALIBRATION): the lowest multiple
 * of 10 at which precision over their candidate pairs is at least 0.99 both with the fixed weights
 * (the service's; 70 would do) and with weights estimated by EM (link-csv's; 80), each with the
 * prior estimated from its file (bin/linkage-eval.ts prints both). Before the calibration it was
 * 40 on the uncalibrated confidence: the service's links now need about 1.2 bits more evidence.
 */
export const DEFAULT_THRESHOLD = 80;

/**
 * The lowest confidence of a possible match by default (issue 36, ADR 0022): from 50 — about half
 * of such pairs the same person — up to DEFAULT_THRESHOLD a pair goes to review. Measured on FEBRL
 * 1–3 and the held-out sets as the service scores them (tools/linkage/bin/linkage-eval.ts), review
 * from 50 instead of 60 keeps 0.4–1.8% more of the true pairs blocking reaches, from 40 instead of
 * 50 only 0–2.2% more at about twice the pairs per true one.
 */
export const DEFAULT_REVIEW_THRESHOLD = 50;

/**
 * The share of each uncertain class's pairs that are the same person (in %), before any decision
 * is known: the median over FEBRL 1–3 and the held-out sets of the share true among the class's
 * pairs that score 50 or more as the service scores them (tools/linkage/bin/linkage-eval.ts,
 * 2026-11-28, with the date-of-birth levels the service estimates from each set: adoptableDobLevels).
 * Partial names: 25% (4 pairs, duplicates30) to 100%, median 96.2; one word against another: 0%
 * (twins, duplicates1) to 100% (FEBRL 1's replaced given names), median 49.5 (under the review
 * threshold's default: the service keeps a class at REVIEW_THRESHOLD at least); names agreeing
 * without a date of birth that confirms them: 34.5% to 100%, median 78.0 (66.7 before the
 * estimated date levels lifted the true ones with a year retyped into the band) — which is why
 * only each deployment's own decisions can tell (ScoreOptions.review; the linking service's
 * review-classes.ts).
 */
export const REVIEW_CLASS_PRIOR: Readonly<Record<UncertainClass, number>> = {
  partialName: 96.2,
  loneWord: 49.5,
  unconfirmedDob: 78.0,
};

export interface PrepareOptions {
  /** Day/month order of slash dates (03/04/1980): 'dmy' (default) or 'mdy'. */
  readonly dayMonthOrder?: DayMonthOrder;
}

export interface ScoreOptions {
  /**
   * Name-word frequencies (nameFrequencies over the records being linked): agreement on a rare
   * word then weighs more, on a common one less. Without them every word weighs the same.
   */
  readonly frequencies?: NameFrequencies | undefined;
  /**
   * Prior log2-odds against a match (default PRIOR_BITS = 13): the weight at which confidence is
   * 50. For large sets use priorBitsFor(set size).
   */
  readonly priorBits?: number | undefined;
  /**
   * Name-word and date-of-birth level weights estimated from the data being linked (em.ts:
   * estimateWeights), in place of the fixed ones. The word-frequency adjustment still applies.
   */
  readonly weights?: LevelWeights | undefined;
  /**
   * One name word agreeing beside one that disagrees outright links only with strong further
   * evidence (loneAgreement): twins and siblings kept apart, at the cost of true pairs with a name
   * word replaced (ADR 0007 gives the figures both ways). Off by default.
   */
  readonly strictNames?: boolean | undefined;
  /**
   * The names must agree on as many whole words as a name can show: two, or one when either name
   * has only one word (wholeNameAgreement). A surname alone, a given name alone or a surname with
   * an initial, beside a fuller name, then counts as not agreeing (capped: weightWithoutName), so it
   * never scores as if the whole name agreed. The service scores every pair so (issue 34: what
   * links and what a NAMLC check discloses); link-csv and the evaluations do not.
   */
  readonly wholeNames?: boolean | undefined;
  /**
   * The review band's classes (issue 36, ADR 0022): pairs whose names leave real doubt are weighed
   * on what was compared but never scored above their class's confidence (0–100), so they go to
   * review rather than being linked or hidden. `partialName`: the names agree on what both show but
   * one has fewer words (a surname alone against a full name), or both are one word (a surname
   * alone against a surname alone); with wholeNames, else ignored. `loneWord`: one name word agrees
   * beside one that disagrees outright (twins, siblings, a married name — Bartholomew and Ignatius
   * Fairweather born the same day), whatever strictNames says. `unconfirmedDob`: the names agree
   * (and are neither of those) but no date of birth confirms them — one or both missing or
   * impossible, or different beyond one slip (namesakes). A class left out is weighed as without
   * this option.
   */
  readonly review?: ReviewCeilings | undefined;
}

/** The classes of pairs that go to review (ScoreOptions.review). */
export type UncertainClass = 'partialName' | 'loneWord' | 'unconfirmedDob';
export const UNCERTAIN_CLASSES: readonly UncertainClass[] = ['partialName', 'loneWord', 'unconfirmedDob'];

/** The most confidence (0–100) a pair of each uncertain class may have (ScoreOptions.review). */
export type ReviewCeilings = Partial<Record<UncertainClass, number>>;

/** What each uncertain class is, as the explanation says it. */
const UNCERTAIN_WHAT: Readonly<Record<UncertainClass, string>> = {
  partialName: 'only part of the name could be compared',
  loneWord: 'one name word agrees and another disagrees (twins, siblings, a changed name)',
  unconfirmedDob: 'the names agree but no date of birth confirms them (one missing, or different dates)',
};

/** The explanation's note on a pair of an uncertain class shown at most at `ceiling` (ScoreOptions.review). */
export const uncertainNote = (uncertain: UncertainClass, ceiling: number) =>
  `${UNCERTAIN_WHAT[uncertain]}: at most ${round2(ceiling)}%, for an investigator to decide`;

/** Normalizes a record's fields once (names folded, placeholders dropped, dates checked). */
export function prepareRecord(input: MatchInput, options: PrepareOptions = {}): PreparedRecord {
  const order = options.dayMonthOrder ?? 'dmy';
  const name =
    typeof input.suspectName === 'string' && input.suspectName.trim() !== ''
      ? prepareName(input.suspectName)
      : prepareNameParts(input.givenName, input.surname);
  const organization = input.organization?.trim() || undefined;
  const dob = parseDobDigits(input.suspectDob, order);
  const incidentDate = parseDate(input.incidentDate, order);
  const caseAmount = prepareAmount(input.caseAmount);
  return {
    id: input.id,
    name,
    ...(organization ? { organization } : {}),
    ...(dob ? { dob } : {}),
    ...(incidentDate ? { incidentDate } : {}),
    ...(caseAmount !== undefined ? { caseAmount } : {}),
  };
}

const pow2 = (x: number) => 2 ** x;
const sigma = (x: number) => 1 / (1 + pow2(-x));

/**
 * The confidence (0–100, unrounded) for a total weight in bits, at a prior of 1 in 2^priorBits,
 * calibrated (CALIBRATION for the fixed weights, EM_CALIBRATION for weights estimated by EM):
 * 100 · (σ(s(W − P) + o) − σ(o − sP)) / (1 − σ(o − sP)), so that no evidence (W = 0) gives 0.
 */
export function weightToConfidence(
  totalWeight: number,
  priorBits: number = PRIOR_BITS,
  calibration: Calibration = CALIBRATION,
): number {
  if (!(totalWeight > 0)) return 0;
  const { slope, offset } = calibration;
  const base = sigma(offset - slope * priorBits);
  return (100 * (sigma(slope * (totalWeight - priorBits) + offset) - base)) / (1 - base);
}

/**
 * The total weight in bits at which weightToConfidence gives `confidence` (0 < confidence < 100):
 * its inverse.
 */
export function confidenceToWeight(
  confidence: number,
  priorBits: number = PRIOR_BITS,
  calibration: Calibration = CALIBRATION,
): number {
  if (!(confidence > 0)) return 0;
  const { slope, offset } = calibration;
  const base = sigma(offset - slope * priorBits);
  const y = base + (Math.min(confidence, 99.999) / 100) * (1 - base);
  return priorBits + (-Math.log2(1 / y - 1) - offset) / slope;
}

/** The calibration `weights` score with: their own, EM_CALIBRATION for estimated weights, CALIBRATION for the fixed ones (undefined). */
export const calibrationFor = (weights: LevelWeights | undefined): Calibration =>
  weights ? (weights.calibration ?? EM_CALIBRATION) : CALIBRATION;

/** The calibration of the weights in use (calibrationFor). */
const calibrationOf = (options: ScoreOptions): Calibration => calibrationFor(options.weights);

/**
 * The most a pair whose names do not agree may weigh: MAX_WEIGHT_WITHOUT_NAME, and never so much
 * that its confidence reaches 20% at the prior in use (a prior estimated from a file of many
 * duplicates can be as low as 9 bits, where 9 bits alone would be about 50%).
 */
function weightWithoutName(options: ScoreOptions): number {
  const priorBits = options.priorBits ?? PRIOR_BITS;
  const { slope, offset } = calibrationOf(options);
  return Math.min(MAX_WEIGHT_WITHOUT_NAME, priorBits + (-2 - offset) / slope);
}

/**
 * The prior (ScoreOptions.priorBits) for matching against a set of `size` records, each record
 * expected to have about one match there: log2(size), and never under PRIOR_BITS. The larger the
 * set, the more pairs share a date of birth or a name by chance, so the more evidence a link needs.
 */
export function priorBitsFor(size: number): number {
  return Math.max(PRIOR_BITS, Math.log2(Math.max(1, size)));
}

interface FieldScore {
  field: MatchField;
  status: FieldStatus;
  weight: number;
  detail?: string;
  /** Names only: whether they agree enough to carry a link (see namesAgree). */
  agrees?: boolean;
  /** Whether the field disagrees somewhere: a name word against another, dates of birth that differ. */
  disagrees?: boolean;
  /** Names only: the pair's uncertain class, when ScoreOptions.review weighs it as one. */
  uncertain?: UncertainClass;
}

function nameScore(
  a: PreparedName,
  b: PreparedName,
  frequencies: NameFrequencies | undefined,
  weights: LevelWeights | undefined,
  wholeNames: boolean,
  review: ReviewCeilings | undefined,
): { score: FieldScore; comparison?: NameComparison } {
  if (!hasName(a) || !hasName(b)) {
    return { score: { field: 'suspectName', status: 'missing', weight: 0, detail: missingDetail(hasName(a)) } };
  }
  const c = compareNames(a, b, frequencies, weights?.name);
  if (c.pairs.length === 0 && c.conflicts === 0) {
    // A given name alone against a surname alone: nothing to compare, neither for nor against.
    const detail = 'the names have no part in common to compare';
    return { score: { field: 'suspectName', status: 'missing', weight: 0, detail } };
  }
  const { weight } = c;
  const allExact = c.conflicts === 0 && c.pairs.length > 0 && c.pairs.every((p) => p.level === 'exact');
  const sameWords =
    allExact && c.slots === a.tokens.length + a.initials.length && c.slots === b.tokens.length + b.initials.length;
  const status: FieldStatus = sameWords || (allExact && c.slots >= 2) ? 'match' : weight > 0 ? 'partial' : 'mismatch';
  const parts = c.pairs.map((p) => {
    const text = p.level === 'exact' ? p.a : `${p.a} ~ ${p.b} (${p.level})`;
    return p.crossRole ? `${text} (given name against surname)` : text;
  });
  if (c.conflicts > 0) parts.push(`${c.conflicts} word${c.conflicts > 1 ? 's' : ''} disagree`);
  let agrees = namesAgree(c, weight);
  const disagrees = c.conflicts > 0;
  let uncertain: UncertainClass | undefined;
  const lone = c.conflicts > 0 && c.pairs.length === 1;
  const twinLike = agrees && review?.loneWord !== undefined;
  const alike = twinLike && !lone ? lookAlikeNames(c, frequencies) : undefined;
  if (alike) parts.push(`${alike.a} and ${alike.b} are two names, each common here`);
  if (twinLike && (lone || alike)) uncertain = 'loneWord';
  else if (agrees && wholeNames && !wholeNameAgreement(a, b, c)) {
    if (!lone && review?.partialName !== undefined) uncertain = 'partialName';
    else {
      agrees = false;
      parts.push(PART_OF_NAME);
    }
  } else if (agrees && wholeNames && review?.partialName !== undefined && nameWords(a) === 1 && nameWords(b) === 1) {
    // A surname alone against a surname alone (or a given name against a given name) is part of
    // two names as much as against a full one: namesakes and twins share it.
    uncertain = 'partialName';
  }
  if (uncertain) parts.push(uncertainNote(uncertain, review![uncertain]!));
  return {
    score: {
      field: 'suspectName',
      status: agrees && !uncertain ? status : status === 'match' ? 'partial' : status,
      weight,
      detail: parts.join('; '),
      agrees,
      disagrees,
      ...(uncertain ? { uncertain } : {}),
    },
    comparison: c,
  };
}

/** Fewest records a word must be on to count as a name in its own right (lookAlikeNames). */
const LOOK_ALIKE_MIN_RECORDS = 5;

/** Levels at which two different words may be one written wrongly (lookAlikeNames). */
const LOOK_ALIKE_LEVELS: ReadonlySet<string> = new Set(['typo', 'phonetic', 'similar', 'scrambled']);

/**
 * The first pair of words the comparison aligned as one written wrongly (a typo, a sound-alike, a
 * look-alike) that are both names in their own right: each on at least RARE_WORD_SHARE of the
 * named records (Lena and Lea, Charles and Charlotte, Schmidt and Schmitt). A slip of the pen makes
 * a word nobody else has; two established names one letter apart are as often two people — twins,
 * siblings — as one written wrongly (issue 36: with 1% of records a duplicate, such pairs were
 * the false links left at 80). Without name-word frequencies nothing is known to be a name.
 */
function lookAlikeNames(c: NameComparison, frequencies: NameFrequencies | undefined): NamePair | undefined {
  if (!frequencies) return undefined;
  // In a small set one record is already RARE_WORD_SHARE: a name also needs LOOK_ALIKE_MIN_RECORDS
  // records (a word no record has is given the share of one record: frequenciesFromCounts).
  // Most agreeing names are exact: nothing to look up for them (this runs on every scored pair).
  const lookAlike = (p: NamePair) => LOOK_ALIKE_LEVELS.has(p.level);
  if (!c.pairs.some(lookAlike)) return undefined;
  const least = Math.max(RARE_WORD_SHARE, LOOK_ALIKE_MIN_RECORDS * frequencies(''));
  return c.pairs.find((p) => lookAlike(p) && frequencies(p.a) >= least && frequencies(p.b) >= least);
}

/** The explanation's note on a pair capped by ScoreOptions.wholeNames. */
export const PART_OF_NAME =
  'only part of the name agrees: a link or match needs two whole words (or two one-word names)';

/** Words and initials of a name. */
const nameWords = (n: PreparedName) => n.tokens.length + n.initials.length;

/**
 * ScoreOptions.wholeNames: at least two aligned pairs of whole words (an initial is not one), or
 * one when both names are a single word. "Farnsworth" or "Zebulon" against "Zebulon Farnsworth",
 * or "Z Farnsworth" against it, does not agree; "Zebulon Farnsworth" against "Zebulon Q Farnsworth"
 * does, and "Farnsworth" against "Farnsworth".
 */
export function wholeNameAgreement(a: PreparedName, b: PreparedName, c: NameComparison): boolean {
  const words = c.pairs.filter((p) => p.level !== 'initial').length;
  return words >= Math.min(2, Math.max(nameWords(a), nameWords(b)));
}

/** Levels at which one aligned word is, on its own, real agreement of two names. */
const STRONG_LEVELS: ReadonlySet<string> = new Set(['exact', 'typo']);

/**
 * Whether two names agree enough to carry a link (else the total weight is capped below the
 * threshold, so a date of birth and a case alone never link): their weight is positive, and a
 * word agrees exactly or with one typo, or no word disagrees. A lone look-alike word beside a
 * disagreeing one (Michael Smith / Jonathon Smithers) is not enough. (A given name alone against
 * a surname alone is no disagreement: see compareNames.)
 */
function namesAgree(c: NameComparison, weight: number): boolean {
  if (!(weight > 0)) return false;
  return c.conflicts === 0 || c.pairs.some((p) => STRONG_LEVELS.has(p.level));
}

function missingDetail(leftPresent: boolean): string {
  return leftPresent ? 'missing or placeholder on the second record' : 'missing or placeholder on the first record';
}

const daysApart = (days: number) => `${days} day${days === 1 ? '' : 's'} apart`;

function dobScore(a: PreparedDate | undefined, b: PreparedDate | undefined, weights?: LevelWeights): FieldScore {
  if (!a || !b) return { field: 'suspectDob', status: 'missing', weight: 0, detail: missingDetail(Boolean(a)) };
  const compared = compareDobs(a, b);
  const c: DobComparison = weights ? { ...compared, weight: weights.dob[compared.level] } : compared;
  if (c.level === 'exact') return { field: 'suspectDob', status: 'match', weight: c.weight, detail: 'same date' };
  if (c.level === 'slip') return { field: 'suspectDob', status: 'partial', weight: c.weight, detail: c.slip };
  // Beyond one slip, the dates disagree (even where that weighs nothing: see DOB_WEIGHTS).
  const disagrees = true;
  if (c.level === 'near') {
    const detail = daysApart(Math.abs(a.days - b.days));
    return { field: 'suspectDob', status: 'partial', weight: c.weight, detail, disagrees };
  }
  if (c.level === 'impossible') {
    const detail = a.impossible && b.impossible ? 'impossible dates' : 'an impossible date, not one slip of the other';
    return { field: 'suspectDob', status: 'missing', weight: c.weight, detail, disagrees };
  }
  if (c.level === 'twoParts') {
    // Estimated from the data (adoption.ts: adoptableDobLevels) it can weigh for the pair.
    const detail = 'two of year, month and day agree';
    const status: FieldStatus = c.weight > 0 ? 'partial' : 'mismatch';
    return { field: 'suspectDob', status, weight: c.weight, detail, disagrees };
  }
  return { field: 'suspectDob', status: 'mismatch', weight: c.weight, detail: 'different dates', disagrees };
}

function incidentScore(a: PreparedDate | undefined, b: PreparedDate | undefined): FieldScore {
  if (!a || !b) return { field: 'incidentDate', status: 'missing', weight: 0, detail: missingDetail(Boolean(a)) };
  const { days, weight } = compareIncidentDates(a, b);
  const status: FieldStatus = days === 0 ? 'match' : weight > 0 ? 'partial' : 'mismatch';
  return { field: 'incidentDate', status, weight, detail: days === 0 ? 'same day' : daysApart(days) };
}

function amountScore(a: number | undefined, b: number | undefined): FieldScore {
  if (a === undefined || b === undefined) {
    return { field: 'caseAmount', status: 'missing', weight: 0, detail: missingDetail(a !== undefined) };
  }
  const { relative, weight } = compareAmounts(a, b);
  const status: FieldStatus = relative <= 0.005 ? 'match' : weight > 0 ? 'partial' : 'mismatch';
  const pct = relative * 100;
  return { field: 'caseAmount', status, weight, detail: `${pct < 0.01 ? '0' : pct.toFixed(pct < 10 ? 2 : 0)}% apart` };
}

/**
 * Splits `total` hundredths among weights in proportion (signed), as integers adding up to `total`
 * exactly (largest remainder). Zero weights get zero.
 */
function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (total === 0 || sum <= 0) return weights.map(() => 0);
  const raw = weights.map((w) => (total * w) / sum);
  const out = raw.map(Math.floor);
  let rest = total - out.reduce((s, v) => s + v, 0);
  const order = raw
    .map((r, i) => ({ i, frac: weights[i] === 0 ? -1 : r - Math.floor(r) }))
    .sort((x, y) => y.frac - x.frac);
  for (const { i } of order) {
    if (rest <= 0) break;
    out[i]! += 1;
    rest--;
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The total weight in bits of a prepared pair (no exclusion rules): the sum of the field weights,
 * capped at MAX_WEIGHT_WITHOUT_NAME unless the names agree at least in part.
 */
export function pairWeight(a: PreparedRecord, b: PreparedRecord, options: ScoreOptions = {}): number {
  return totalWeight(fieldScores(a, b, options), options);
}

/** A pair's weight before the cap, and what else link-csv needs to know of the pair (pairWeightParts). */
export interface PairParts {
  /** The sum of the field weights. */
  readonly sum: number;
  /** Whether the names agree enough to carry a link (else the weight is capped). */
  readonly namesAgree: boolean;
  /** The names agree with no word against another, and the dates of birth are the same. */
  readonly confirmed: boolean;
  /** A name word disagrees, or the dates of birth are more than one slip apart. */
  readonly disagrees: boolean;
}

/**
 * A pair's weight before the cap (pairWeight = cappedWeight(pairWeightParts(a, b, options),
 * options)): the sum of the field weights, whether the names agree enough to carry a link, and
 * whether the pair is confirmed or disagrees somewhere (for matching/partners.ts). The cap depends
 * on the prior, so link-csv weighs each pair once and caps it for the prior's estimate and again,
 * at the estimated prior, for its confidence.
 */
export function pairWeightParts(a: PreparedRecord, b: PreparedRecord, options: ScoreOptions = {}): PairParts {
  const [name, dob, ...rest] = fieldScores(a, b, options) as [FieldScore, FieldScore, ...FieldScore[]];
  const namesAgree = name.agrees === true;
  return {
    sum: rest.reduce((s, f) => s + f.weight, name.weight + dob.weight),
    namesAgree,
    confirmed: namesAgree && !name.disagrees && dob.status === 'match',
    disagrees: name.disagrees === true || dob.disagrees === true,
  };
}

/** The total weight of a pair from its parts: capped (weightWithoutName) unless the names agree. */
export function cappedWeight(
  parts: { readonly sum: number; readonly namesAgree: boolean },
  options: ScoreOptions = {},
): number {
  return parts.namesAgree ? parts.sum : Math.min(parts.sum, weightWithoutName(options));
}

function totalWeight(scores: readonly FieldScore[], options: ScoreOptions): number {
  const sum = scores.reduce((s, f) => s + f.weight, 0);
  const capped = cappedWeight({ sum, namesAgree: scores[0]!.agrees === true }, options);
  const uncertain = scores[0]!.uncertain;
  if (!uncertain) return capped;
  const ceiling = options.review?.[uncertain] ?? 100;
  return Math.min(capped, confidenceToWeight(ceiling, options.priorBits, calibrationOf(options)));
}

function fieldScores(a: PreparedRecord, b: PreparedRecord, options: ScoreOptions): FieldScore[] {
  const dob = dobScore(a.dob, b.dob, options.weights);
  const caseFields = [incidentScore(a.incidentDate, b.incidentDate), amountScore(a.caseAmount, b.caseAmount)];
  const { score, comparison } = nameScore(
    a.name,
    b.name,
    options.frequencies,
    options.weights,
    options.wholeNames === true,
    options.review,
  );
  const name =
    comparison && options.strictNames && !score.uncertain
      ? loneAgreement(score, comparison, dob, options.frequencies, a.name)
      : score;
  return [unconfirmedDob(name, dob, options.review), dob, ...caseFields.map((f) => corroborating(f, dob))];
}

/**
 * With ScoreOptions.review's `unconfirmedDob`: names that agree (and are no other uncertain class)
 * while the dates of birth do not confirm them — one or both missing or impossible, or different
 * beyond one slip — are the namesakes a small island is full of as often as one person written
 * twice, so the pair is weighed but goes to review (issue 36: on the held-out sets such pairs made
 * most of the false links at 80 and above).
 */
function unconfirmedDob(name: FieldScore, dob: FieldScore, review: ReviewCeilings | undefined): FieldScore {
  const ceiling = review?.unconfirmedDob;
  if (ceiling === undefined || !name.agrees || name.uncertain) return name;
  if (dob.status === 'match' || (dob.status === 'partial' && !dob.disagrees)) return name;
  const note = uncertainNote('unconfirmedDob', ceiling);
  return { ...name, uncertain: 'unconfirmedDob', detail: name.detail ? `${name.detail}; ${note}` : note };
}

/**
 * With ScoreOptions.strictNames: one name word agreeing beside one that disagrees outright
 * (Manfred / Gabriele Neumann born the same day) is what twins and siblings look like, not only a
 * name written wrongly, so it carries a link only with strong further evidence — the agreeing
 * word exact, in the same part of the name, rare (at most RARE_WORD_SHARE of named records;
 * without name-word frequencies nothing is known to be rare), and the same date of birth. Otherwise the names count as not agreeing, and the pair
 * is capped as such (weightWithoutName: under 20%). When the parts are known and the agreeing
 * word is the given name (the surname differs: a married name, a surname written wrongly), the
 * pair is weighed as before. A typo-level or cross-part agreement beside a disagreeing word
 * (Schmidt ~ Schmitt beside another given name) is never enough.
 */
function loneAgreement(
  name: FieldScore,
  c: NameComparison,
  dob: FieldScore,
  frequencies: NameFrequencies | undefined,
  first: PreparedName,
): FieldScore {
  if (!name.agrees || c.conflicts === 0 || c.pairs.length !== 1) return name;
  const pair = c.pairs[0]!;
  if (!pair.crossRole && first.roles?.[first.tokens.indexOf(pair.a)] === 'given') return name;
  const rare = frequencies !== undefined && frequencies(pair.a) <= RARE_WORD_SHARE;
  if (pair.level === 'exact' && !pair.crossRole && rare && dob.status === 'match') return name;
  const note =
    'one word agreeing beside a disagreeing one links only when it is rare, exact and in the same part, with the same date of birth';
  return { ...name, agrees: false, detail: name.detail ? `${name.detail}; ${note}` : note };
}

/**
 * Incident date and amount describe the case, not the person: two suspects of one case (a father
 * and son of the same name, co-offenders) share them. So they only corroborate: when both dates of
 * birth are known and disagree, agreement on them is not counted (their disagreement still is).
 */
function corroborating(score: FieldScore, dob: FieldScore): FieldScore {
  if (dob.status !== 'mismatch' || score.weight <= 0) return score;
  const note = 'not counted: the dates of birth disagree';
  return { ...score, weight: 0, detail: score.detail ? `${score.detail}; ${note}` : note };
}

/**
 * Why a pair may never match, if it may not: the same record (same id within one organization, or
 * both without one), or two records of one organization.
 */
export function exclusion(a: PreparedRecord, b: PreparedRecord): MatchResult['excluded'] {
  if (a.organization === b.organization)
    return a.id === b.id ? 'same record' : a.organization === undefined ? undefined : 'same organization';
  return undefined;
}

const sameWords = (x: readonly string[], y: readonly string[]) =>
  x.length === y.length && [...x].sort().join(' ') === [...y].sort().join(' ');

/**
 * Whether two records agree exactly on every field both have: the same name words and initials
 * (in any order), the same date of birth, incident date and case amount. Only such a pair may be
 * shown as certain (confidence 100); any typo, nearby date or other amount leaves some doubt.
 */
export function agreesExactly(a: PreparedRecord, b: PreparedRecord): boolean {
  if (a.name.tokens.length === 0 || !sameWords(a.name.tokens, b.name.tokens)) return false;
  if (!sameWords(a.name.initials, b.name.initials)) return false;
  for (const [x, y] of [
    [a.dob, b.dob],
    [a.incidentDate, b.incidentDate],
  ] as const) {
    if (x && y && (x.digits !== y.digits || x.impossible)) return false;
  }
  return a.caseAmount === undefined || b.caseAmount === undefined || a.caseAmount === b.caseAmount;
}

/** The highest confidence, in hundredths, of a pair that does not agree exactly (99.99). */
const UNCERTAIN_MAX_HUNDREDTHS = 9999;

/** A pair's confidence in hundredths from its total weight (pairWeight), as scorePrepared gives it. */
function confidenceHundredths(a: PreparedRecord, b: PreparedRecord, weight: number, options: ScoreOptions): number {
  if (exclusion(a, b)) return 0;
  const rounded = Math.round(weightToConfidence(weight, options.priorBits, calibrationOf(options)) * 100);
  // 100 only for exact agreement: rounding must not make a near-certain pair look certain.
  return rounded > UNCERTAIN_MAX_HUNDREDTHS && !agreesExactly(a, b) ? UNCERTAIN_MAX_HUNDREDTHS : rounded;
}

/**
 * The confidence scorePrepared(a, b, options) gives, from the pair's pairWeight(a, b, options)
 * already at hand (without its explanation): link-csv weighs every pair once, for the prior and
 * for the output.
 */
export function confidenceOfWeight(a: PreparedRecord, b: PreparedRecord, weight: number, options: ScoreOptions = {}) {
  return confidenceHundredths(a, b, weight, options) / 100;
}

/** Scores two prepared records. */
export function scorePrepared(a: PreparedRecord, b: PreparedRecord, options: ScoreOptions = {}): MatchResult {
  const scores = fieldScores(a, b, options);
  const excluded = exclusion(a, b);
  const hundredths = confidenceHundredths(a, b, totalWeight(scores, options), options);
  const shares = apportion(
    hundredths,
    scores.map((f) => f.weight),
  );
  const explanation: FieldExplanation[] = scores.map((f, i) => ({
    field: f.field,
    status: f.status,
    contribution: shares[i]! / 100,
    weight: round2(f.weight),
    ...(f.detail ? { detail: f.detail } : {}),
  }));
  const matchCriteria = Object.fromEntries(
    scores.map((f) => [f.field, !excluded && f.weight > 0]),
  ) as unknown as MatchCriteria;
  const uncertain = excluded ? undefined : scores[0]!.uncertain;
  return {
    confidence: hundredths / 100,
    matchCriteria,
    explanation,
    ...(excluded ? { excluded } : {}),
    ...(uncertain ? { uncertain } : {}),
  };
}

/** Scores two records: scorePrepared(prepareRecord(a), prepareRecord(b)). */
export function scorePair(a: MatchInput, b: MatchInput, options: PrepareOptions & ScoreOptions = {}): MatchResult {
  return scorePrepared(prepareRecord(a, options), prepareRecord(b, options), options);
}

/** Sum of contributions in hundredths (equals confidence × 100 exactly; floating sums may not). */
export function contributionTotal(result: MatchResult): number {
  return result.explanation.reduce((s, e) => s + Math.round(e.contribution * 100), 0) / 100;
}
