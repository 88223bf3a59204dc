/**
 * `npm run linkage:eval`: match quality of the linking scorer on FEBRL 4 (shared/data/linkage):
 * dataset4a as one agency, dataset4b as another, name and date of birth only. Prints blocking
 * size and recall, precision / recall / F1 at DEFAULT_THRESHOLD, the best recall at precision ≥
 * 0.99 and the best F1 — as link-csv scores (weights estimated from the two files by EM, name-word
 * frequencies, the prior estimated from them) and with the service's fixed weights. Then FEBRL 1–3,
 * each deduplicated (as link-csv without --right), the same figures both ways, and the reliability
 * table of the service's confidence over their candidate pairs: among pairs shown at about N%, how
 * many are true. Last, the three zones as the service scores (issue 36): FEBRL 1–3 and the
 * held-out sets, the auto-links' precision and recall, the recall of auto-links and possible
 * matches together, and each uncertain class's pairs and share true.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  candidatePairs,
  DEFAULT_REVIEW_THRESHOLD,
  DEFAULT_THRESHOLD,
  type MatchInput,
  prepareRecord,
  scoreCandidatePairs,
  UNCERTAIN_CLASSES,
  type UncertainClass,
} from '@nrad/matching';
import { dedupeFebrl, type FebrlRecord, linkageDataDir, loadFebrl, scoreAsService } from '../src/eval/febrl.ts';
import { generateHeldout, HELDOUT_KINDS, type HeldoutRecord, largeClusters } from '../src/eval/heldout.ts';
import { bestF1, bestRecallAtPrecision, qualityAt, reliability, type ScoredPair } from '../src/eval/metrics.ts';
import { leaveOneSetOut, medianShare, zoneFigures } from '../src/eval/zones.ts';

const t0 = performance.now();
const dir = linkageDataDir();
for (const name of ['dataset4a.csv', 'dataset4b.csv']) {
  if (!existsSync(path.join(dir, name))) {
    console.error(`linkage:eval: ${name} not found in ${dir}; set LINKAGE_DATA_DIR to the FEBRL folder`);
    process.exit(2);
  }
}
const rawA = loadFebrl(path.join(dir, 'dataset4a.csv'), 'AGENCY-A');
const rawB = loadFebrl(path.join(dir, 'dataset4b.csv'), 'AGENCY-B');
const a = rawA.map((r) => prepareRecord(r));
const b = rawB.map((r) => prepareRecord(r));

// Ground truth: rec-N-org (4a) ↔ rec-N-dup-0 (4b).
const entitiesB = new Set(rawB.map((r) => r.entity));
const totalMatches = rawA.filter((r) => entitiesB.has(r.entity)).length;

const tBlock = performance.now();
const { pairs, skippedKeys } = candidatePairs(a, b);
const blockSeconds = (performance.now() - tBlock) / 1000;
const reachable = pairs.filter(([i, j]) => rawA[i]!.entity === rawB[j]!.entity).length;

// Baseline: pairs whose given name, surname and date of birth are equal as written (trimmed, any
// letter case), found with a hash join over all 25,000,000 pairs.
const exactKey = (r: (typeof rawA)[number]) =>
  [r.givenName, r.surname, r.suspectDob].map((v) => (v ?? '').trim().toLowerCase()).join('|');
const byExactKey = new Map<string, number[]>();
rawB.forEach((r, j) => {
  const list = byExactKey.get(exactKey(r));
  if (list) list.push(j);
  else byExactKey.set(exactKey(r), [j]);
});
let exactPairs = 0;
let exactTrue = 0;
for (const r of rawA) {
  for (const j of byExactKey.get(exactKey(r)) ?? []) {
    exactPairs++;
    if (rawB[j]!.entity === r.entity) exactTrue++;
  }
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const f4 = (x: number) => x.toFixed(4);
const f3 = (x: number) => x.toFixed(3);

/** Precision, recall and F1 at the default threshold, the best recall at precision ≥ 0.99, the best F1. */
function summary(scored: readonly ScoredPair[], totalMatches: number): string[] {
  const at = qualityAt(scored, totalMatches, DEFAULT_THRESHOLD);
  const best = bestRecallAtPrecision(scored, totalMatches, 0.99);
  const f1 = bestF1(scored, totalMatches);
  return [
    `  default threshold:   confidence ≥ ${DEFAULT_THRESHOLD}: precision ${f4(at.precision)}, recall ${f4(at.recall)}, F1 ${f4(at.f1)} (${at.truePositives} true, ${at.falsePositives} false links)`,
    best
      ? `  precision ≥ 0.99:    best recall ${f4(best.recall)} at confidence ≥ ${best.threshold.toFixed(2)} (precision ${f4(best.precision)}, F1 ${f4(best.f1)})`
      : '  precision ≥ 0.99:    not reached at any threshold',
    f1
      ? `  best F1:             ${f4(f1.f1)} at confidence ≥ ${f1.threshold.toFixed(2)} (precision ${f4(f1.precision)}, recall ${f4(f1.recall)})`
      : '  best F1:             no pairs',
  ];
}
const lines = [
  'Linkage evaluation — FEBRL 4, name and date of birth only',
  `  data:                ${dir}`,
  `  records:             dataset4a.csv as agency A: ${a.length}; dataset4b.csv as agency B: ${b.length}`,
  `  true pairs:          ${totalMatches} (rec-N-org ↔ rec-N-dup-0)`,
  '  evidence:            given_name + surname → suspect name (in two parts), date_of_birth → suspect DOB (impossible dates compared on their digits); no incident date or amount',
  "  tuning:              the service's fixed weights, the calibrations and the default threshold set on FEBRL 1–3 (bin/linkage-tune.ts); link-csv's weights estimated from the files scored (EM); FEBRL 4 never used for tuning",
  `  blocking:            ${pairs.length} candidate pairs of ${a.length * b.length} (${pct(pairs.length / (a.length * b.length))}) in ${blockSeconds.toFixed(2)} s${skippedKeys ? `, ${skippedKeys} over-full keys skipped` : ''}`,
  `  blocking recall:     ${reachable} of ${totalMatches} true pairs are candidates (${pct(reachable / totalMatches)})`,
  `  baseline:            given name, surname and date of birth equal as written: ${exactPairs} pairs, precision ${(exactTrue / Math.max(1, exactPairs)).toFixed(4)}, recall ${(exactTrue / totalMatches).toFixed(4)}`,
];

const modes: Array<
  [string, (left: typeof a, candidates: typeof pairs, right: typeof b) => { confidences: Float64Array }]
> = [
  [
    'as link-csv: weights estimated from both files (EM), name-word frequencies, prior estimated from them, pairs explained by other matches capped',
    scoreCandidatePairs,
  ],
  [
    "with the service's fixed weights (calibrated on FEBRL 1–3), name-word frequencies, the estimated prior",
    scoreAsService,
  ],
  [
    'as link-csv --strict-names (one word agreeing beside a disagreeing one links only when rare, exact, same part, same date of birth)',
    (left, candidates, right) => scoreCandidatePairs(left, candidates, right, { strictNames: true }),
  ],
];
for (const [label, score] of modes) {
  const tScore = performance.now();
  const { confidences } = score(a, pairs, b);
  const scored: ScoredPair[] = pairs.map(([i, j], k) => ({
    confidence: confidences[k]!,
    isMatch: rawA[i]!.entity === rawB[j]!.entity,
  }));
  const scoreSeconds = (performance.now() - tScore) / 1000;
  lines.push('', `Scoring ${label}: ${scoreSeconds.toFixed(2)} s`, ...summary(scored, totalMatches), '  by threshold:');
  for (const t of [20, 30, 40, 50, 60, 70, 80, 90]) {
    const q = qualityAt(scored, totalMatches, t);
    lines.push(
      `    confidence ≥ ${t}:  precision ${f4(q.precision)}, recall ${f4(q.recall)}, F1 ${f4(q.f1)} (${q.falsePositives} false links)`,
    );
  }
}
// FEBRL 1–3: one file each, deduplicated as link-csv does (weights, frequencies and prior from the
// file), and with the service's fixed weights (whose confidence the calibration is for).
const pooled: ScoredPair[] = [];
const pooledEm: ScoredPair[] = [];
for (const name of ['dataset1.csv', 'dataset2.csv', 'dataset3.csv']) {
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    lines.push('', `FEBRL ${name}: not found in ${dir}`);
    continue;
  }
  const em = dedupeFebrl(file);
  const fixed = dedupeFebrl(file, { service: true });
  pooledEm.push(...em.scored);
  pooled.push(...fixed.scored);
  const found = em.scored.filter((p) => p.isMatch).length;
  lines.push(
    '',
    `FEBRL ${name} deduplicated: ${em.records} records, ${em.truePairs} true pairs, ${em.scored.length} candidate pairs holding ${found} of them (${pct(found / em.truePairs)})`,
    `  as link-csv (weights estimated by EM; prior ${em.priorBits.toFixed(2)} bits):`,
    ...summary(em.scored, em.truePairs),
    `  the service's fixed weights (prior ${fixed.priorBits.toFixed(2)} bits):`,
    ...summary(fixed.scored, fixed.truePairs),
    `  as link-csv --strict-names:`,
    summary(dedupeFebrl(file, { strictNames: true }).scored, em.truePairs)[0]!,
  );
}
if (pooled.length > 0) {
  const { bands, calibrationError } = reliability(pooled);
  lines.push(
    '',
    `Reliability of the service's confidence (fixed weights, calibrated) over FEBRL 1–3's ${pooled.length} candidate pairs (bands of 10 points):`,
    '    band        pairs   mean confidence   share true',
    ...bands.map(
      (b) =>
        `    ${`[${b.low}, ${b.high}${b.high === 100 ? ']' : ')'}`.padEnd(10)}${String(b.pairs).padStart(7)}   ${
          b.pairs ? `${b.meanConfidence.toFixed(1)}%`.padStart(15) : '—'.padStart(15)
        }   ${b.pairs ? `${(100 * b.shareTrue).toFixed(1)}%`.padStart(10) : '—'.padStart(10)}`,
    ),
    `  expected calibration error: ${(100 * calibrationError).toFixed(2)} points (0 is calibrated); with weights estimated by EM (link-csv): ${(100 * reliability(pooledEm).calibrationError).toFixed(2)} points`,
  );
}

// The three zones as the service scores (issue 36, ADR 0022): FEBRL 1–3 and the held-out sets.
const zoneSets: Array<[string, () => ReadonlyArray<MatchInput & { entity: string }>]> = [
  ...['dataset1.csv', 'dataset2.csv', 'dataset3.csv']
    .filter((name) => existsSync(path.join(dir, name)))
    .map((name): [string, () => FebrlRecord[]] => [`FEBRL ${name}`, () => loadFebrl(path.join(dir, name))]),
  ...HELDOUT_KINDS.map((kind): [string, () => HeldoutRecord[]] => [`held-out ${kind}`, () => generateHeldout(kind)]),
  ['held-out largeClusters (10,000)', () => largeClusters({ records: 10_000, largest: 20, seed: 3 })],
];
// FEBRL 4, the evaluation pair, as the service links it: 4a one agency's records, 4b another's
// (only pairs across them are candidates). Shown, never part of the medians the priors are.
const febrl4 = ['dataset4a.csv', 'dataset4b.csv'].map((name) => path.join(dir, name));
const EVALUATION = 'FEBRL 4 (4a, 4b two agencies)';
if (febrl4.every((file) => existsSync(file))) {
  zoneSets.push([EVALUATION, () => [...loadFebrl(febrl4[0]!, 'A'), ...loadFebrl(febrl4[1]!, 'B')]]);
}
const zones = zoneSets.map(([name, load]) => [name, zoneFigures(load())] as const);
const CLASS_LABEL: Record<UncertainClass, string> = {
  partialName: 'partial name ≥ review',
  loneWord: 'one word against another',
  unconfirmedDob: 'no date of birth confirms',
};
const share = (c: { pairs: number; truePairs: number }) =>
  c.pairs === 0 ? '–' : `${c.pairs} / ${f3(c.truePairs / c.pairs)}`;
lines.push(
  '',
  `The three zones as the service scores (whole names, fixed weights with the date-of-birth levels it would estimate from the set; auto ≥ ${DEFAULT_THRESHOLD}, review from ${DEFAULT_REVIEW_THRESHOLD} and every uncertain pair from there):`,
  `    set                               reachable   auto precision / recall   auto + review recall (of reachable)${UNCERTAIN_CLASSES.map((c) => `   ${`${CLASS_LABEL[c]}: pairs / true`.padStart(34)}`).join('')}   date levels estimated (bits)`,
  ...zones.map(([name, z]) => {
    const autoP = z.auto.pairs ? f3(z.auto.truePairs / z.auto.pairs) : '–';
    const levels = Object.entries(z.dobLevels).map(([level, bits]) => `${level} ${bits.toFixed(2)}`);
    return `    ${name.padEnd(34)}${f3(z.reachable / z.truePairs).padStart(9)}   ${`${autoP} / ${f3(z.auto.truePairs / z.truePairs)}`.padStart(23)}   ${f3((z.auto.truePairs + z.review.truePairs) / z.reachable).padStart(35)}${UNCERTAIN_CLASSES.map((c) => `   ${share(z.classes[c]).padStart(34)}`).join('')}   ${levels.join(', ') || 'none'}`;
  }),
  `  median share true (REVIEW_CLASS_PRIOR; FEBRL 4 left out): ${UNCERTAIN_CLASSES.map(
    (c) =>
      `${CLASS_LABEL[c]} ${f3(
        medianShare(
          zones.filter(([name]) => name !== EVALUATION).map(([, z]) => z),
          c,
        ) ?? Number.NaN,
      )}`,
  ).join(', ')}`,
);
// Leave one set out (Deliver 3): each set's calibration fitted on the others, judged on it.
const heldOut = leaveOneSetOut(zones.map(([name, z]) => ({ name, points: z.points, priorBits: z.priorBits })));
const points = (x: number) => (100 * x).toFixed(2);
lines.push(
  '',
  `Leave one set out: the pairs of no uncertain class, their calibration fitted on every other set (Platt scaling in bits), judged on the set left out (targets: ECE ≤ 5 points, precision ≥ 0.99 at ${DEFAULT_THRESHOLD}):`,
  '    set                               fitted slope / offset   ECE service / fitted (points)   at 80, service: precision / recall   fitted: precision / recall',
  ...heldOut.map(
    (r) =>
      `    ${r.name.padEnd(34)}${`${r.fitted.slope.toFixed(2)} / ${r.fitted.offset.toFixed(2)}`.padStart(20)}   ${`${points(r.ece.service)} / ${points(r.ece.fitted)}`.padStart(29)}   ${`${f3(r.atLink.service.precision)} / ${f3(r.atLink.service.recall)}`.padStart(34)}   ${`${f3(r.atLink.fitted.precision)} / ${f3(r.atLink.fitted.recall)}`.padStart(26)}`,
  ),
);

lines.push(
  '',
  'Target: recall ≥ 0.95 at precision ≥ 0.99 with name and date of birth alone.',
  `Run time: ${((performance.now() - t0) / 1000).toFixed(2)} s`,
);
console.log(lines.join('\n'));
