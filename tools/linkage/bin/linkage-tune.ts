/**
 * Estimates the Fellegi–Sunter weights of weights.ts on FEBRL 1–3 (deduplication sets; FEBRL 4 is
 * kept for the evaluation) and checks the default threshold there.
 *
 *   node tools/linkage/bin/linkage-tune.mjs
 *
 * m = share of true pairs (same person) at a level, u = share of random pairs of different people;
 * weight = log2(m / u). Name levels are counted per aligned word position.
 */
import path from 'node:path';
import {
  CALIBRATION,
  candidatePairs,
  compareDobs,
  compareNames,
  DEFAULT_THRESHOLD,
  DOB_WEIGHTS,
  EM_CALIBRATION,
  hasName,
  NAME_WEIGHTS,
  type PreparedRecord,
  pairWeight,
  prepareRecord,
  rng,
  scoreCandidatePairs,
  scorePrepared,
  type TokenLevel,
} from '@nrad/matching';
import { type FebrlRecord, linkageDataDir, loadFebrl, serviceOptions } from '../src/eval/febrl.ts';
import {
  bestRecallAtPrecision,
  type EvidencePoint,
  fitCalibration,
  qualityAt,
  reliability,
  type ScoredPair,
} from '../src/eval/metrics.ts';

const SETS = ['dataset1.csv', 'dataset2.csv', 'dataset3.csv'];
const RANDOM_PAIRS_PER_SET = 200_000;

class Counts {
  readonly name = new Map<string, number>();
  nameSlots = 0;
  readonly dob = new Map<string, number>();
  dobPairs = 0;
  add(a: PreparedRecord, b: PreparedRecord) {
    if (hasName(a.name) && hasName(b.name)) {
      const c = compareNames(a.name, b.name);
      for (const p of c.pairs) this.name.set(p.level, (this.name.get(p.level) ?? 0) + 1);
      this.name.set('conflict', (this.name.get('conflict') ?? 0) + c.conflicts);
      this.nameSlots += c.slots;
    }
    if (a.dob && b.dob) {
      const level = compareDobs(a.dob, b.dob).level;
      this.dob.set(level, (this.dob.get(level) ?? 0) + 1);
      this.dobPairs++;
    }
  }
}

const t0 = performance.now();
const dir = linkageDataDir();
const m = new Counts();
const u = new Counts();
const scored: ScoredPair[] = [];
const scoredTf: ScoredPair[] = [];
/** Each candidate pair's log-odds before calibration (total weight less the prior), as link-csv scores it. */
const evidence: EvidencePoint[] = [];
/** The same with the weights link-csv estimates from each file by EM. */
const evidenceEm: EvidencePoint[] = [];
const scoredEm: ScoredPair[] = [];
let totalMatches = 0;
let reachable = 0;
const random = rng(20240601);
for (const file of SETS) {
  const raw: FebrlRecord[] = loadFebrl(path.join(dir, file));
  const records = raw.map((r) => prepareRecord(r));
  const byEntity = new Map<string, number[]>();
  raw.forEach((r, i) => {
    const list = byEntity.get(r.entity);
    if (list) list.push(i);
    else byEntity.set(r.entity, [i]);
  });
  let matches = 0;
  for (const members of byEntity.values()) {
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        m.add(records[members[x]!]!, records[members[y]!]!);
        matches++;
      }
    }
  }
  for (let k = 0; k < RANDOM_PAIRS_PER_SET; k++) {
    const i = Math.floor(random() * raw.length);
    const j = Math.floor(random() * raw.length);
    if (raw[i]!.entity === raw[j]!.entity) continue;
    u.add(records[i]!, records[j]!);
  }
  const { pairs } = candidatePairs(records);
  // As the service scores (fixed weights, name-word frequencies), with the prior estimated from the
  // file; and as link-csv scores (link-csv/score.ts: weights estimated by EM, pairs explained by
  // other matches capped).
  const options = serviceOptions(records, pairs);
  const linkCsv = scoreCandidatePairs(records, pairs);
  pairs.forEach(([i, j], k) => {
    const isMatch = raw[i]!.entity === raw[j]!.entity;
    if (isMatch) reachable++;
    scored.push({ confidence: scorePrepared(records[i]!, records[j]!).confidence, isMatch });
    scoredTf.push({ confidence: scorePrepared(records[i]!, records[j]!, options).confidence, isMatch });
    evidence.push({ x: pairWeight(records[i]!, records[j]!, options) - options.priorBits, isMatch });
    evidenceEm.push({ x: linkCsv.pairWeights[k]! - linkCsv.options.priorBits, isMatch });
    scoredEm.push({ confidence: linkCsv.confidences[k]!, isMatch });
  });
  totalMatches += matches;
}

const fmt = (x: number) => x.toFixed(4);
console.log(
  `FEBRL 1–3 (${SETS.join(', ')}): ${totalMatches} true pairs, random non-pairs sampled per set: ${RANDOM_PAIRS_PER_SET}`,
);
console.log('\nName word positions: level, m, u, estimated log2(m/u), weight in use');
const levels: TokenLevel[] = ['exact', 'typo', 'phonetic', 'similar', 'scrambled', 'initial', 'conflict'];
for (const level of levels) {
  const mm = (m.name.get(level) ?? 0) / m.nameSlots;
  const uu = (u.name.get(level) ?? 0) / u.nameSlots;
  const est = mm > 0 && uu > 0 ? Math.log2(mm / uu).toFixed(2) : 'n/a';
  console.log(`  ${level.padEnd(9)} m=${fmt(mm)} u=${uu.toExponential(3)} est=${est} used=${NAME_WEIGHTS[level]}`);
}
console.log('\nDate of birth: level, m, u, estimated log2(m/u), weight in use');
for (const level of ['exact', 'slip', 'near', 'mismatch'] as const) {
  const mm = (m.dob.get(level) ?? 0) / m.dobPairs;
  const uu = (u.dob.get(level) ?? 0) / u.dobPairs;
  const est = mm > 0 && uu > 0 ? Math.log2(mm / uu).toFixed(2) : 'n/a';
  console.log(`  ${level.padEnd(9)} m=${fmt(mm)} u=${uu.toExponential(3)} est=${est} used=${DOB_WEIGHTS[level]}`);
}
console.log(
  `\nBlocking (dedupe within each set): ${scored.length} candidate pairs, ${reachable}/${totalMatches} true pairs reachable`,
);
for (const [label, list] of [
  ['fixed weights', scored],
  ['fixed weights with name-word frequencies and the estimated prior (the service)', scoredTf],
  ['weights estimated by EM, frequencies, estimated prior (link-csv)', scoredEm],
] as const) {
  console.log(`  ${label}:`);
  for (const t of [20, 30, 40, 50, 60, 70, 80, 90]) {
    const q = qualityAt(list, totalMatches, t);
    console.log(
      `    threshold ${String(t).padStart(3)}: precision ${fmt(q.precision)} recall ${fmt(q.recall)} F1 ${fmt(q.f1)} (fp ${q.falsePositives})`,
    );
  }
  const best = bestRecallAtPrecision(list, totalMatches, 0.99);
  if (best) console.log(`    best recall at precision ≥ 0.99: ${fmt(best.recall)} at confidence ≥ ${best.threshold}`);
}
for (const [label, points, inUse, scores] of [
  ['fixed weights (the service)', evidence, CALIBRATION, scoredTf],
  ['weights estimated by EM (link-csv)', evidenceEm, EM_CALIBRATION, scoredEm],
] as const) {
  const fit = fitCalibration(points);
  console.log(
    `\nCalibration, ${label}: Platt scaling in bits over ${points.length} candidate pairs:` +
      ` slope ${fit.slope.toFixed(3)}, offset ${fit.offset.toFixed(3)}; in use: slope ${inUse.slope}, offset ${inUse.offset}`,
  );
  const { bands, calibrationError } = reliability(scores);
  for (const b of bands) {
    if (b.pairs === 0) continue;
    console.log(
      `  [${b.low}, ${b.high}): ${b.pairs} pairs, mean confidence ${b.meanConfidence.toFixed(1)}%, true ${(100 * b.shareTrue).toFixed(1)}%`,
    );
  }
  console.log(`  expected calibration error ${(100 * calibrationError).toFixed(2)} points`);
}
console.log(`Default threshold in use: ${DEFAULT_THRESHOLD}`);
console.log(`Run time: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
