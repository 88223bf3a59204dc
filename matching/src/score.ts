/**
 * How link-csv scores its candidate pairs, for link-csv itself and for the evaluations that report
 * its quality (tools/linkage: eval/febrl.ts, eval/heldout.ts, bin/linkage-eval.ts): name-word frequencies and
 * weights estimated from the input by EM (or, with `fixedWeights`, the service's fixed weights and
 * no frequencies), `strictNames` if asked (scorer.ts: ScoreOptions), each pair weighed once, pairs
 * explained by other matches capped (partners.ts), the prior estimated from the capped
 * weights, then each pair's confidence.
 */
import { type NameFrequencies, nameFrequencies } from './compare.ts';
import { estimateWeights, type WeightEstimate } from './em.ts';
import { explainedPairs } from './partners.ts';
import { comparablePairs, estimatePrior } from './prior.ts';
import { cappedWeight, confidenceOfWeight, type PreparedRecord, pairWeightParts, type ScoreOptions } from './scorer.ts';

export interface CandidateScores {
  /** The options the pairs were scored with (the prior estimated from them). */
  readonly options: ScoreOptions & { readonly priorBits: number };
  /** The weights' estimate (undefined: fixed weights, asked for or for want of pairs). */
  readonly estimate?: WeightEstimate;
  /** Each candidate pair's total weight in bits (capped), parallel to the pairs. */
  readonly pairWeights: Float64Array;
  /** Each candidate pair's confidence (0–100, two decimals), parallel to the pairs. */
  readonly confidences: Float64Array;
  /** Whether each pair was explained by other matches (and capped). */
  readonly explained: readonly boolean[];
  /** The confidence pair k would have had if it were not explained by other matches. */
  readonly unexplained: (k: number) => number;
}

/**
 * Scores candidate pairs within `left` (no `right`) or between `left` and `right`, as link-csv
 * does.
 */
export function scoreCandidatePairs(
  left: readonly PreparedRecord[],
  pairs: ReadonlyArray<readonly [number, number]>,
  right?: readonly PreparedRecord[],
  { fixedWeights = false, strictNames = false }: { fixedWeights?: boolean; strictNames?: boolean } = {},
): CandidateScores {
  const frequencies: NameFrequencies | undefined = fixedWeights
    ? undefined
    : nameFrequencies([...left, ...(right ?? [])].map((r) => r.name));
  // Weights estimated from the input by EM (unless fixed, or too few pairs to estimate them), and
  // the prior from its own match rate: a file of clusters has many matches per record, a clean one
  // almost none. Each pair is weighed once, for the prior and for its confidence.
  const estimate = fixedWeights ? undefined : estimateWeights(left, pairs, right);
  const weights = estimate?.weights;
  const other = right ?? left;
  const parts = pairs.map(([i, j]) => pairWeightParts(left[i]!, other[j]!, { frequencies, weights, strictNames }));
  const explained = explainedPairs(pairs, parts, right ? left.length : 0);
  // An explained pair is capped as if its names did not agree.
  const weigh = (k: number, o: ScoreOptions) =>
    cappedWeight(explained[k] ? { sum: parts[k]!.sum, namesAgree: false } : parts[k]!, o);
  const { priorBits } = estimatePrior(
    Float64Array.from(parts, (_, k) => weigh(k, { frequencies, weights, strictNames })),
    comparablePairs(left, right),
  );
  const options = { frequencies, priorBits, weights, strictNames };
  // Capped again at the estimated prior (the cap without agreeing names depends on it).
  const pairWeights = Float64Array.from(parts, (_, k) => weigh(k, options));
  const confidences = Float64Array.from(pairs, ([i, j], k) =>
    confidenceOfWeight(left[i]!, other[j]!, pairWeights[k]!, options),
  );
  /** The confidence pair k would have had, not explained by other matches. */
  const unexplained = (k: number) => {
    const [i, j] = pairs[k]!;
    return confidenceOfWeight(left[i]!, other[j]!, cappedWeight(parts[k]!, options), options);
  };
  return { options, ...(estimate ? { estimate } : {}), pairWeights, confidences, explained, unexplained };
}
