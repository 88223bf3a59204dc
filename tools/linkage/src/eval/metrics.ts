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

/** The quality at every threshold the scores allow (each distinct confidence), highest first. */
function everyThreshold(pairs: readonly ScoredPair[], totalMatches: number): Quality[] {
  const sorted = [...pairs].sort((a, b) => b.confidence - a.confidence);
  let tp = 0;
  let fp = 0;
  const out: Quality[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const p = sorted[i]!;
    if (p.isMatch) tp++;
    else fp++;
    // Only at the end of a run of equal confidences is the threshold a real one.
    if (i + 1 < sorted.length && sorted[i + 1]!.confidence === p.confidence) continue;
    out.push(quality(p.confidence, tp, fp, totalMatches));
  }
  return out;
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
  let best: Quality | undefined;
  for (const q of everyThreshold(pairs, totalMatches)) {
    if (q.precision >= minPrecision && (!best || q.recall > best.recall)) best = q;
  }
  return best;
}

/** The best F1 over every threshold the scores allow; undefined without pairs. */
export function bestF1(pairs: readonly ScoredPair[], totalMatches: number): Quality | undefined {
  let best: Quality | undefined;
  for (const q of everyThreshold(pairs, totalMatches)) if (!best || q.f1 > best.f1) best = q;
  return best;
}

export interface ReliabilityBand {
  /** The band's confidences: from `low` (included) to `high` (excluded; the last band includes 100). */
  readonly low: number;
  readonly high: number;
  readonly pairs: number;
  /** Mean confidence of the band's pairs (0–100); NaN when it has none. */
  readonly meanConfidence: number;
  /** The share of its pairs that are true matches (0–1); NaN when it has none. */
  readonly shareTrue: number;
}

/**
 * The reliability table of scored pairs: bands of `width` confidence points, each with its number
 * of pairs, their mean confidence and the share of them that are true; and the expected
 * calibration error (the pairs-weighted mean of |mean confidence / 100 − share true|). A calibrated
 * confidence has about N% true among the pairs shown at about N%.
 */
export function reliability(
  pairs: readonly ScoredPair[],
  width = 10,
): { bands: ReliabilityBand[]; calibrationError: number } {
  const count = Math.ceil(100 / width);
  const sums = Array.from({ length: count }, () => ({ pairs: 0, confidence: 0, true: 0 }));
  for (const p of pairs) {
    const band = sums[Math.min(count - 1, Math.floor(p.confidence / width))]!;
    band.pairs++;
    band.confidence += p.confidence;
    if (p.isMatch) band.true++;
  }
  let error = 0;
  const bands = sums.map((b, k) => {
    const meanConfidence = b.pairs ? b.confidence / b.pairs : Number.NaN;
    const shareTrue = b.pairs ? b.true / b.pairs : Number.NaN;
    if (b.pairs) error += b.pairs * Math.abs(meanConfidence / 100 - shareTrue);
    return { low: k * width, high: Math.min(100, (k + 1) * width), pairs: b.pairs, meanConfidence, shareTrue };
  });
  return { bands, calibrationError: pairs.length ? error / pairs.length : 0 };
}

/** A pair's evidence against its truth, for fitCalibration: x in bits (log2-odds), y 1 when true. */
export interface EvidencePoint {
  readonly x: number;
  readonly isMatch: boolean;
}

/**
 * Platt scaling in bits: the slope and offset that make σ(slope·x + offset), σ(z) = 1/(1 + 2^−z),
 * the maximum-likelihood probability of a match (logistic regression on one variable, Newton's
 * method). A calibrated x has slope 1 and offset 0; an offset of +1 means pairs are twice as likely
 * to be matches, in odds, as x says.
 */
export function fitCalibration(points: readonly EvidencePoint[]): { slope: number; offset: number } {
  let slope = 1;
  let offset = 0;
  const ln2 = Math.LN2;
  for (let iteration = 0; iteration < 100; iteration++) {
    let gs = 0;
    let go = 0;
    let hss = 0;
    let hso = 0;
    let hoo = 0;
    for (const { x, isMatch } of points) {
      const p = 1 / (1 + Math.exp(-(slope * x + offset) * ln2));
      const residual = (isMatch ? 1 : 0) - p;
      const w = p * (1 - p) * ln2 * ln2;
      gs += residual * x * ln2;
      go += residual * ln2;
      hss += w * x * x;
      hso += w * x;
      hoo += w;
    }
    const det = hss * hoo - hso * hso;
    if (!(Math.abs(det) > 1e-12)) break;
    const ds = (hoo * gs - hso * go) / det;
    const dO = (hss * go - hso * gs) / det;
    slope += ds;
    offset += dO;
    if (Math.abs(ds) + Math.abs(dO) < 1e-10) break;
  }
  return { slope, offset };
}
