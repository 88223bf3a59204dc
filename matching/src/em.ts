/**
 * Weights estimated from the data being linked (as Splink does), instead of the fixed weights of
 * weights.ts: for every name-word level and date-of-birth level, m (its share among matches) and
 * u (among pairs of different people), weight = log2(m / u).
 *
 * - u from random pairs of the data: almost all of them are different people.
 * - m by expectation–maximisation, one field at a time, on pairs chosen by the other field, so the
 *   field estimated was not what chose them: name levels on the candidate pairs whose dates of birth
 *   are the same, date-of-birth levels on the candidate pairs whose names agree word for word (same
 *   words, or one typo). Within such a session the matches and non-matches are told apart by the
 *   estimated field alone (u held fixed), and the share of matches is estimated with m.
 *
 * Name words are counted per aligned position, as the scorer adds them. Pure functions, no I/O;
 * weightEstimation is the same estimate in steps, for a caller that must not hold the event loop
 * (the linking service's background re-estimate, domain/match-rate.ts).
 */
import { compareDobs, compareNames, type NameComparison } from './compare.ts';
import { hasName } from './normalize.ts';
import type { PreparedRecord } from './scorer.ts';
import type { DobLevel, LevelWeights, TokenLevel } from './weights.ts';

export const TOKEN_LEVELS: readonly TokenLevel[] = [
  'exact',
  'typo',
  'phonetic',
  'similar',
  'scrambled',
  'initial',
  'conflict',
];
export const DOB_LEVELS: readonly DobLevel[] = ['exact', 'slip', 'near', 'twoParts', 'impossible', 'mismatch'];

/** An EM session: its pairs (decided ones among them), the share of matches found, the iterations. */
export interface SessionSummary {
  readonly pairs: number;
  /** Of `pairs`, those decided by a person (EstimateOptions.labels). */
  readonly labels: number;
  readonly matchShare: number;
  readonly iterations: number;
}

export interface WeightEstimate {
  readonly weights: LevelWeights;
  readonly m: { readonly name: Record<TokenLevel, number>; readonly dob: Record<DobLevel, number> };
  readonly u: { readonly name: Record<TokenLevel, number>; readonly dob: Record<DobLevel, number> };
  /** Pairs in each EM session, and the share of matches EM found among them. */
  readonly sessions: {
    readonly name: SessionSummary;
    readonly dob: SessionSummary;
  };
  readonly randomPairs: number;
}

/** A pair whose truth a person decided (issue 36: a confirmed or rejected possible match, a rejected link). */
export interface LabelledPair {
  readonly a: PreparedRecord;
  readonly b: PreparedRecord;
  /** The same person (confirmed) or two people (rejected). */
  readonly same: boolean;
}

export interface EstimateOptions {
  /** Random pairs drawn for u (default 200,000). */
  readonly randomPairs?: number;
  /** Seed of the draw (deterministic). */
  readonly seed?: number;
  /**
   * Decided pairs: each joins both sessions (its name where both records are named, its date of
   * birth where both have one) with its truth fixed instead of guessed — in place of its guessed
   * observation when it is a candidate pair too (known by its prepared records: the same objects) —
   * so m follows what people decided; they are left out of the share of matches (they are no random
   * sample of the pairs).
   */
  readonly labels?: readonly LabelledPair[];
}

/** Fewer pairs than this in a session give no estimate (the fixed weights are kept). */
export const MIN_SESSION_PAIRS = 100;
/** Pseudo-count added to each level's count, so a level never seen keeps a finite weight. */
const PSEUDO_COUNT = 0.5;
/** Weights stay within ±this many bits. */
const MAX_BITS = 20;

/** mulberry32: a small seeded PRNG, so the same data gives the same weights (and linkage-tune the same draws). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Counts<K extends string> = Record<K, number>;
const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Counts<K>;

/** Adds a name comparison's positions' levels to `counts`. */
function addNameCounts(counts: Counts<TokenLevel>, c: NameComparison): void {
  for (const p of c.pairs) counts[p.level]++;
  counts.conflict += c.conflicts;
}

/** A name comparison as counts of its positions' levels. */
function nameCounts(c: NameComparison): Counts<TokenLevel> {
  const counts = zeros(TOKEN_LEVELS);
  addNameCounts(counts, c);
  return counts;
}

/** Each count's share of them all, every count given PSEUDO_COUNT more, into `into` (in order). */
function sharesInto(counts: ArrayLike<number>, into: { [k: number]: number }): void {
  let total = 0;
  for (let k = 0; k < counts.length; k++) total = total + (counts[k] as number) + PSEUDO_COUNT;
  for (let k = 0; k < counts.length; k++) into[k] = ((counts[k] as number) + PSEUDO_COUNT) / total;
}

function shares<K extends string>(keys: readonly K[], counts: Counts<K>): Counts<K> {
  const values = keys.map((k) => counts[k]);
  sharesInto(values, values);
  return Object.fromEntries(keys.map((k, i) => [k, values[i] as number])) as Counts<K>;
}

/**
 * EM for m of one field with u fixed: each observation is a list of level counts (one level for a
 * date of birth, one per word position for a name); returns m and the share of matches. Yields
 * after every iteration (see weightEstimation).
 */
function* emSession<K extends string>(
  keys: readonly K[],
  observations: ReadonlyArray<Counts<K>>,
  u: Counts<K>,
  start: Counts<K>,
  /** Per observation, its truth when a person decided it (1 the same person, 0 two), else undefined. */
  fixed: ReadonlyArray<number | undefined> = [],
): Generator<void, { m: Counts<K>; matchShare: number; iterations: number }> {
  // The levels as columns of arrays, each observation's counts a row of one array: the same sums
  // in the same order as over the counts' objects, without looking each level up by name in every
  // row of every iteration (most of a session's time).
  const n = keys.length;
  const rows = observations.length;
  const counts = new Float64Array(rows * n);
  for (let o = 0; o < rows; o++) {
    const row = observations[o] as Counts<K>;
    for (let k = 0; k < n; k++) counts[o * n + k] = row[keys[k] as K];
  }
  const uOf = Float64Array.from(keys, (k) => u[k]);
  const m = Float64Array.from(keys, (k) => start[k]);
  const bits = new Float64Array(n);
  const expected = new Float64Array(n);
  const next = new Float64Array(n);
  let lambda = 0.5;
  let iterations = 0;
  const guessed = rows - fixed.filter((g) => g !== undefined).length;
  for (; iterations < 300; iterations++) {
    if (iterations > 0) yield;
    for (let k = 0; k < n; k++) bits[k] = Math.log2((m[k] as number) / (uOf[k] as number));
    const prior = Math.log2(lambda / (1 - lambda));
    expected.fill(0);
    let sum = 0;
    for (let o = 0, at = 0; o < rows; o++, at += n) {
      let g = fixed[o];
      if (g === undefined) {
        let w = prior;
        for (let k = 0; k < n; k++) {
          const c = counts[at + k] as number;
          if (c) w += c * (bits[k] as number);
        }
        g = 1 / (1 + 2 ** -w);
        sum += g;
      }
      for (let k = 0; k < n; k++) {
        const c = counts[at + k] as number;
        if (c) expected[k] = (expected[k] as number) + g * c;
      }
    }
    sharesInto(expected, next);
    const nextLambda = guessed === 0 ? lambda : Math.min(1 - 1e-6, Math.max(1e-6, sum / guessed));
    let moved = Math.abs(nextLambda - lambda);
    for (let k = 0; k < n; k++) moved = Math.max(moved, Math.abs((next[k] as number) - (m[k] as number)));
    m.set(next);
    lambda = nextLambda;
    if (moved < 1e-7) {
      iterations++;
      break;
    }
  }
  return {
    m: Object.fromEntries(keys.map((k, i) => [k, m[i] as number])) as Counts<K>,
    matchShare: lambda,
    iterations,
  };
}

const clampBits = (x: number) => Math.max(-MAX_BITS, Math.min(MAX_BITS, x));

/** Starting m: the shape of the fixed weights (matches mostly agree). */
const START_NAME = shares(TOKEN_LEVELS, {
  exact: 700,
  typo: 60,
  phonetic: 10,
  similar: 20,
  scrambled: 5,
  initial: 5,
  conflict: 100,
});
const START_DOB = shares(DOB_LEVELS, { exact: 700, slip: 150, near: 10, twoParts: 40, impossible: 10, mismatch: 90 });

/**
 * Estimates level weights from records and their candidate pairs (within `left`, or between `left`
 * and `right`). Undefined when either session has fewer than MIN_SESSION_PAIRS pairs, or the fit
 * is degenerate (agreement weighing less than disagreement): keep the fixed weights then.
 */
export function estimateWeights(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right?: readonly PreparedRecord[],
  options: EstimateOptions = {},
): WeightEstimate | undefined {
  return finish(weightEstimation(left, pairs, right, options));
}

/** Runs steps (a generator that yields between them) to the end at once: their result. */
export function finish<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Random pairs drawn, or candidate pairs compared, between two yields of weightEstimation (some 20 ms). */
export const ESTIMATE_STEP = 2000;

/**
 * estimateWeights in steps: yields after every ESTIMATE_STEP random or candidate pairs and after
 * every EM iteration, so that a caller can give the event loop back between them (the linking
 * service re-estimates in the background; the 200,000 random pairs alone take some 2 s). The
 * result is estimateWeights', computed in the same order.
 */
export function* weightEstimation(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right?: readonly PreparedRecord[],
  options: EstimateOptions = {},
): Generator<void, WeightEstimate | undefined> {
  const other = right ?? left;
  const { u, drawn } = yield* randomPairShares(left, other, options);
  const labels = options.labels ?? [];
  const { nameObs, dobObs } = yield* sessionObservations(left, other, pairs, decidedPairs(labels));
  if (nameObs.length < MIN_SESSION_PAIRS || dobObs.length < MIN_SESSION_PAIRS) return undefined;
  const decided = labelledObservations(labels);
  const nameFixed = [...nameObs.map(() => undefined), ...decided.nameFixed];
  const dobFixed = [...dobObs.map(() => undefined), ...decided.dobFixed];
  nameObs.push(...decided.nameObs);
  dobObs.push(...decided.dobObs);
  const names = yield* emSession(TOKEN_LEVELS, nameObs, u.name, START_NAME, nameFixed);
  const dobs = yield* emSession(DOB_LEVELS, dobObs, u.dob, START_DOB, dobFixed);
  const weights: LevelWeights = {
    name: Object.fromEntries(
      TOKEN_LEVELS.map((k) => [k, clampBits(Math.log2(names.m[k] / u.name[k]))]),
    ) as Counts<TokenLevel>,
    dob: Object.fromEntries(DOB_LEVELS.map((k) => [k, clampBits(Math.log2(dobs.m[k] / u.dob[k]))])) as Counts<DobLevel>,
  };
  if (!(weights.name.exact > weights.name.conflict) || !(weights.dob.exact > weights.dob.mismatch)) return undefined;
  return {
    weights,
    m: { name: names.m, dob: dobs.m },
    u,
    sessions: {
      name: {
        pairs: nameObs.length,
        labels: decided.nameObs.length,
        matchShare: names.matchShare,
        iterations: names.iterations,
      },
      dob: {
        pairs: dobObs.length,
        labels: decided.dobObs.length,
        matchShare: dobs.matchShare,
        iterations: dobs.iterations,
      },
    },
    randomPairs: drawn,
  };
}

/** u: each level's share among random pairs of the data (left × other), and how many were drawn. */
function* randomPairShares(
  left: readonly PreparedRecord[],
  other: readonly PreparedRecord[],
  options: EstimateOptions,
): Generator<void, { u: WeightEstimate['u']; drawn: number }> {
  const random = rng(options.seed ?? 20261124);
  const draws = options.randomPairs ?? 200_000;
  const uName = zeros(TOKEN_LEVELS);
  const uDob = zeros(DOB_LEVELS);
  let drawn = 0;
  for (let k = 0; k < draws && left.length > 0 && other.length > 1; k++) {
    if (k > 0 && k % ESTIMATE_STEP === 0) yield;
    const a = left[Math.floor(random() * left.length)]!;
    const b = other[Math.floor(random() * other.length)]!;
    if (a === b) continue;
    drawn++;
    if (hasName(a.name) && hasName(b.name)) {
      // Into uName as it goes: no counts of its own for each of the 200,000 pairs.
      addNameCounts(uName, compareNames(a.name, b.name));
    }
    if (a.dob && b.dob) uDob[compareDobs(a.dob, b.dob).level]++;
  }
  return { u: { name: shares(TOKEN_LEVELS, uName), dob: shares(DOB_LEVELS, uDob) }, drawn };
}

/** The decided pairs, both ways, by the prepared records themselves (the objects the pairs hold). */
type DecidedPairs = Map<PreparedRecord, Set<PreparedRecord>>;

function decidedPairs(labels: readonly LabelledPair[]): DecidedPairs {
  const decided: DecidedPairs = new Map();
  for (const { a, b } of labels) {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const set = decided.get(x) ?? new Set<PreparedRecord>();
      decided.set(x, set);
      set.add(y);
    }
  }
  return decided;
}

/** The decided pairs' observations, each with its truth: names where both are named, dates where both have one. */
function labelledObservations(labels: readonly LabelledPair[]) {
  const nameObs: Array<Counts<TokenLevel>> = [];
  const dobObs: Array<Counts<DobLevel>> = [];
  const nameFixed: number[] = [];
  const dobFixed: number[] = [];
  for (const { a, b, same } of labels) {
    if (hasName(a.name) && hasName(b.name)) {
      nameObs.push(nameCounts(compareNames(a.name, b.name)));
      nameFixed.push(same ? 1 : 0);
    }
    if (a.dob && b.dob) {
      const counts = zeros(DOB_LEVELS);
      counts[compareDobs(a.dob, b.dob).level] = 1;
      dobObs.push(counts);
      dobFixed.push(same ? 1 : 0);
    }
  }
  return { nameObs, dobObs, nameFixed, dobFixed };
}

/** The two sessions' observations: names where the dates of birth are the same; dates where the names agree. */
function* sessionObservations(
  left: readonly PreparedRecord[],
  other: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  decided: DecidedPairs,
): Generator<void, { nameObs: Array<Counts<TokenLevel>>; dobObs: Array<Counts<DobLevel>> }> {
  const nameObs: Array<Counts<TokenLevel>> = [];
  const dobObs: Array<Counts<DobLevel>> = [];
  for (const [k, [i, j]] of pairs.entries()) {
    if (k > 0 && k % ESTIMATE_STEP === 0) yield;
    const a = left[i]!;
    const b = other[j]!;
    if (decided.get(a)?.has(b)) continue; // joins the sessions as decided (labelledObservations)
    if (!hasName(a.name) || !hasName(b.name)) continue;
    const c = compareNames(a.name, b.name);
    const dob = a.dob && b.dob ? compareDobs(a.dob, b.dob).level : undefined;
    if (dob === 'exact') nameObs.push(nameCounts(c));
    const agree =
      c.conflicts === 0 && c.pairs.length >= 2 && c.pairs.every((p) => p.level === 'exact' || p.level === 'typo');
    if (agree && dob) {
      const counts = zeros(DOB_LEVELS);
      counts[dob] = 1;
      dobObs.push(counts);
    }
  }
  return { nameObs, dobObs };
}
