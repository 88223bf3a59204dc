/** Precision / recall over scored candidate pairs (pure). */

export interface ScoredPair {
  readonly confidence: number;
  readonly isMatch: boolean;
}

export interface Quality {
  readonly threshold: number;
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

/** Quality of "confidence ≥ threshold is a match", against `totalMatches` true pairs. */
export function qualityAt(pairs: readonly ScoredPair[], totalMatches: number, threshold: number): Quality {
  let tp = 0;
  let fp = 0;
  for (const p of pairs) {
    if (p.confidence < threshold) continue;
    if (p.isMatch) tp++;
    else fp++;
  }
  return quality(threshold, tp, fp, totalMatches);
}

function quality(threshold: number, tp: number, fp: number, totalMatches: number): Quality {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = totalMatches === 0 ? 1 : tp / totalMatches;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { threshold, truePositives: tp, falsePositives: fp, precision, recall, f1 };
}

/**
 * The best recall whose precision is at least `minPrecision`, over every threshold that the scores
 * allow (each distinct confidence); undefined if no threshold reaches that precision.
 */
export function bestRecallAtPrecision(
  pairs: readonly ScoredPair[],
  totalMatches: number,
  minPrecision: number,
): Quality | undefined {
  const sorted = [...pairs].sort((a, b) => b.confidence - a.confidence);
  let tp = 0;
  let fp = 0;
  let best: Quality | undefined;
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i]!;
    if (p.isMatch) tp++;
    else fp++;
    // Only at the end of a run of equal confidences is the threshold a real one.
    if (i + 1 < sorted.length && sorted[i + 1]!.confidence === p.confidence) continue;
    const q = quality(p.confidence, tp, fp, totalMatches);
    if (q.precision >= minPrecision && (!best || q.recall > best.recall)) best = q;
  }
  return best;
}
