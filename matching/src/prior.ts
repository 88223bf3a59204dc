/**
 * The prior from the data's own match rate (ScoreOptions.priorBits), estimated by
 * expectation–maximisation of the match share λ with the field weights held fixed.
 *
 * The weights are log2(m/u) with u measured on random pairs (weights.ts), so the prior they need is
 * the log-odds against a match for a random pair of the data: log2((1 − λ) / λ), λ = matches /
 * comparable pairs. log2(N) assumes every record has exactly one match; a file with no duplicates
 * has far fewer, and a file of clusters (one person entered five times) has far more. EM: start
 * from "one match in all", take the expected number of matches the posterior gives the candidate
 * pairs (pairs blocking did not make are taken as non-matches), and set λ from it, until it stops
 * moving. Pure functions, no I/O.
 */
import { type PreparedRecord, pairWeight, type ScoreOptions } from './scorer.ts';

export interface PriorEstimate {
  /** log2((1 − λ) / λ): ScoreOptions.priorBits. */
  readonly priorBits: number;
  /** λ: the estimated share of matches among all comparable pairs. */
  readonly matchShare: number;
  /** λ × comparable pairs. */
  readonly expectedMatches: number;
  readonly iterations: number;
}

/** The prior is kept at least this (a match is never assumed likelier than 1 in 2 for a random pair). */
export const MIN_ESTIMATED_PRIOR_BITS = 1;

/**
 * Estimates the prior from the total weights (scorer pairWeight, in bits) of the candidate pairs
 * and the number of pairs that could be compared at all (N(N−1)/2 within one file, N·M between
 * two).
 */
export function estimatePrior(weights: ArrayLike<number>, comparablePairs: number): PriorEstimate {
  const total = Math.max(1, comparablePairs);
  const ceiling = Math.max(MIN_ESTIMATED_PRIOR_BITS, Math.log2(total));
  let priorBits = ceiling;
  let expected = 0;
  let iterations = 0;
  for (; iterations < 200; iterations++) {
    expected = 0;
    for (let k = 0; k < weights.length; k++) expected += 1 / (1 + 2 ** (priorBits - weights[k]!));
    const share = Math.min(0.5, Math.max(expected, 1) / total);
    const next = Math.min(ceiling, Math.max(MIN_ESTIMATED_PRIOR_BITS, Math.log2((1 - share) / share)));
    const moved = Math.abs(next - priorBits);
    priorBits = next;
    if (moved < 1e-6) {
      iterations++;
      break;
    }
  }
  const matchShare = 1 / (1 + 2 ** priorBits);
  return { priorBits, matchShare, expectedMatches: matchShare * total, iterations };
}

/**
 * estimatePrior for candidate pairs of prepared records: within `left` (pairs i < j), or between
 * `left` and `right`, weighed with `options` (frequencies, weights: as they will be scored).
 */
export function estimatePairsPrior(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right: readonly PreparedRecord[] | undefined,
  options: Pick<ScoreOptions, 'frequencies' | 'weights'>,
): PriorEstimate {
  const other = right ?? left;
  return estimatePrior(
    pairs.map(([i, j]) => pairWeight(left[i]!, other[j]!, options)),
    comparablePairs(left, right),
  );
}

/** The pairs that could be compared at all: N(N−1)/2 within one list, N·M between two. */
export function comparablePairs(left: ArrayLike<unknown>, right?: ArrayLike<unknown>): number {
  return right ? left.length * right.length : (left.length * (left.length - 1)) / 2;
}
