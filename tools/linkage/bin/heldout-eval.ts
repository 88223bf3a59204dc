/**
 * `npm run linkage:heldout`: match quality of the linking scorer on the held-out synthetic sets of
 * src/eval/heldout.ts (generated here, no file read; the scorer was tuned on FEBRL 1–3 and never
 * saw them). For each set, deduplicated as link-csv does without --right: records, true pairs,
 * blocking recall, precision / recall / F1 at DEFAULT_THRESHOLD, the best recall at precision ≥
 * 0.99, the best F1, the pairwise quality of the groups of link-csv --cluster, and the same figures
 * for a plain rule (Jaro–Winkler ≥ 0.9 on both name parts, dates of birth at most one slip apart).
 *
 * Options: `--seed N` (default 1); `--examples [N]` also lists, per kind of difference between the
 * two records, the N (default 10) worst false links (highest confidence) and misses (lowest).
 */

import { DEFAULT_THRESHOLD, scorePrepared } from '@nrad/matching';
import {
  baselineRule,
  dedupeHeldout,
  generateHeldout,
  HELDOUT_KINDS,
  type HeldoutKind,
  type HeldoutRecord,
} from '../src/eval/heldout.ts';
import { bestF1, bestRecallAtPrecision, qualityAt, type ScoredPair } from '../src/eval/metrics.ts';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  if (at < 0) return undefined;
  const next = process.argv[at + 1];
  return next && !next.startsWith('--') ? next : '';
}
const seed = Number(option('--seed') ?? 1);
const examplesOption = option('--examples');
const examples = examplesOption === undefined ? 0 : Number(examplesOption || 10);
if (!Number.isInteger(seed) || !Number.isInteger(examples)) {
  console.error('usage: heldout-eval [--seed N] [--examples [N]]');
  process.exit(2);
}

const f4 = (x: number) => x.toFixed(4);
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

const DESCRIPTIONS: Record<HeldoutKind, string> = {
  typos: '9,000 people, 1,000 written twice with 1–3 errors; ~3% twins (same surname and DOB)',
  oneWord: '2,000 people, 1,000 written twice; ~40% of records lack the given name or the surname',
  clusters: '500 people with 1–7 records each, every record 0–2 errors (swapped or missing parts too)',
  nicknames: '4,000 people, 1,000 written twice; 600 of them with a given name that has a short form, 80% writing it',
  replaced: '4,000 people, 1,000 written twice; 80% with the surname or the given name replaced by another',
  duplicates1: '9,900 people, 100 written twice with 1–3 errors (1% duplicates); ~3% twins',
  duplicates30: '7,000 people, 3,000 written twice with 1–3 errors (30% duplicates); ~3% twins',
};

// --- How two records differ (for the examples) ---

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z ]/g, '')
    .trim();

/** Optimal string alignment distance (edits and adjacent swaps), enough to tell one typo from more. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

function namePart(label: string, a: string, b: string): string | undefined {
  if (a === b) return undefined;
  if (!a || !b) return `${label} missing on one`;
  return osa(a, b) === 1 ? `${label} typo` : `${label} differs`;
}

const isDate = (digits: string) => {
  const [y, m, d] = [Number(digits.slice(0, 4)), Number(digits.slice(4, 6)), Number(digits.slice(6, 8))];
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1000 && y <= 2100 && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

function dobPart(a: string, b: string): string | undefined {
  const x = a.replace(/\D/g, '');
  const y = b.replace(/\D/g, '');
  if (x === y) return undefined;
  if (!x || !y) return 'DOB missing on one';
  const impossible = !isDate(x) || !isDate(y) ? ', impossible date' : '';
  const diff = [...x].flatMap((c, i) => (c !== y[i] ? [i] : []));
  if (diff.length === 1) return `DOB one digit${impossible}`;
  if (diff.length === 2 && diff[1] === diff[0]! + 1 && x[diff[0]!] === y[diff[1]!] && x[diff[1]!] === y[diff[0]!]) {
    return `DOB neighbours swapped${impossible}`;
  }
  if (x.slice(0, 4) === y.slice(0, 4) && x.slice(4, 6) === y.slice(6, 8) && x.slice(6, 8) === y.slice(4, 6)) {
    return `DOB day/month swapped${impossible}`;
  }
  const parts = [
    ['year', 0, 4],
    ['month', 4, 6],
    ['day', 6, 8],
  ] as const;
  const differing = parts.filter(([, s, e]) => x.slice(s, e) !== y.slice(s, e)).map(([p]) => p);
  return differing.length === 1 ? `DOB ${differing[0]} replaced${impossible}` : `DOB differs${impossible}`;
}

/** The differences between two records, as a class label ('identical' when none). */
function difference(a: HeldoutRecord, b: HeldoutRecord): string {
  const [ga, sa, gb, sb] = [fold(a.givenName), fold(a.surname), fold(b.givenName), fold(b.surname)];
  const out: string[] = [];
  if ((ga && !sa && !gb && sb) || (!ga && sa && gb && !sb)) out.push('given only vs surname only');
  else if (ga !== gb && sa !== sb && ga && sa && ga === sb && sa === gb) out.push('given/surname swapped');
  else {
    const given = namePart('given', ga, gb);
    const surname = namePart('surname', sa, sb);
    if (given) out.push(given);
    if (surname) out.push(surname);
  }
  const dob = dobPart(a.suspectDob, b.suspectDob);
  if (dob) out.push(dob);
  return out.length > 0 ? out.join(' + ') : 'identical';
}

const show = (r: HeldoutRecord) =>
  `${r.givenName || '∅'} | ${r.surname || '∅'} | ${r.suspectDob || '∅'}`.padEnd(44, ' ');

// --- The evaluation ---

interface Example {
  readonly i: number;
  readonly j: number;
  /** -1: not a candidate of blocking. */
  readonly confidence: number;
}

function examplesOf(kind: HeldoutKind, raw: readonly HeldoutRecord[], run: ReturnType<typeof dedupeHeldout>): string[] {
  const { prepared, scoreOptions: options } = run;
  const byPair = new Map<string, number>();
  const explained = new Set<string>();
  run.pairs.forEach(([i, j], k) => {
    byPair.set(`${i},${j}`, run.scored[k]!.confidence);
    if (run.explained[k]) explained.add(`${i},${j}`);
  });
  const falseLinks: Example[] = [];
  run.pairs.forEach(([i, j], k) => {
    const { confidence, isMatch } = run.scored[k]!;
    if (!isMatch && confidence >= DEFAULT_THRESHOLD) falseLinks.push({ i, j, confidence });
  });
  const members = new Map<string, number[]>();
  raw.forEach((r, k) => {
    const list = members.get(r.entity);
    if (list) list.push(k);
    else members.set(r.entity, [k]);
  });
  const misses: Example[] = [];
  for (const list of members.values()) {
    for (let x = 0; x < list.length; x++) {
      for (let y = x + 1; y < list.length; y++) {
        const [i, j] = [Math.min(list[x]!, list[y]!), Math.max(list[x]!, list[y]!)];
        const confidence = byPair.get(`${i},${j}`) ?? -1;
        if (confidence < DEFAULT_THRESHOLD) misses.push({ i, j, confidence });
      }
    }
  }
  const explain = ({ i, j }: Example) => {
    const result = scorePrepared(prepared[i]!, prepared[j]!, options);
    const fields = result.explanation
      .filter((e) => e.field === 'suspectName' || e.field === 'suspectDob')
      .map((e) => `${e.field === 'suspectName' ? 'name' : 'dob'} ${e.status} ${e.weight} (${e.detail ?? ''})`);
    if (explained.has(`${i},${j}`)) fields.push('capped: explained by other matches');
    return fields.join('; ');
  };
  const section = (title: string, list: Example[], worstFirst: (x: Example, y: Example) => number) => {
    const classes = new Map<string, Example[]>();
    for (const e of list) {
      const label = difference(raw[e.i]!, raw[e.j]!);
      classes.set(label, [...(classes.get(label) ?? []), e]);
    }
    const absent = (items: Example[]) => {
      const n = items.filter((e) => e.confidence < 0).length;
      return n > 0 ? ` (${n} not candidates)` : '';
    };
    const lines = [`  ${title}: ${list.length}${absent(list)}, by how the two records differ:`];
    for (const [label, items] of [...classes].sort((x, y) => y[1].length - x[1].length)) {
      lines.push(`    ${label}: ${items.length}${absent(items)}`);
      for (const e of [...items].sort(worstFirst).slice(0, examples)) {
        const c = e.confidence < 0 ? 'no cand.' : e.confidence.toFixed(2).padStart(8);
        lines.push(`      ${c}  ${show(raw[e.i]!)} ~ ${show(raw[e.j]!)}  ${e.confidence < 0 ? '' : explain(e)}`);
      }
    }
    return lines;
  };
  return [
    `Examples on ${kind} (confidence, the two records as given | surname | DOB, the scorer's name and DOB evidence):`,
    ...section(`false links at confidence ≥ ${DEFAULT_THRESHOLD}`, falseLinks, (x, y) => y.confidence - x.confidence),
    ...section(`misses (true pairs below ${DEFAULT_THRESHOLD})`, misses, (x, y) => x.confidence - y.confidence),
    '',
  ];
}

const t0 = performance.now();
const lines = [
  `Linkage evaluation — held-out synthetic sets (src/eval/heldout.ts, seed ${seed}), name and date of birth only`,
  '  scorer:   name-word frequencies and prior from the set (as link-csv); tuned on FEBRL 1–3, never on these',
  '  baseline: Jaro–Winkler ≥ 0.9 on given name and on surname, dates of birth equal or one slip apart',
];
const detail: string[] = [];
for (const kind of HELDOUT_KINDS) {
  const t = performance.now();
  const raw = generateHeldout(kind, seed);
  const run = dedupeHeldout(raw, { cluster: true });
  const scored: ScoredPair[] = run.scored;
  const reachable = scored.filter((p) => p.isMatch).length;
  const at = qualityAt(scored, run.truePairs, DEFAULT_THRESHOLD);
  const best = bestF1(scored, run.truePairs);
  const precise = bestRecallAtPrecision(scored, run.truePairs, 0.99);
  const baseline = baselineRule(raw);
  const cluster = run.clusterQuality!;
  const strict = dedupeHeldout(raw, { strictNames: true });
  const strictAt = qualityAt(strict.scored, strict.truePairs, DEFAULT_THRESHOLD);
  const strictBest = bestF1(strict.scored, strict.truePairs);
  lines.push(
    '',
    `${kind}: ${DESCRIPTIONS[kind]}`,
    `  records ${run.records}, true pairs ${run.truePairs}; ${scored.length} candidate pairs, holding ${reachable} true ones (blocking recall ${pct(reachable / Math.max(1, run.truePairs))})`,
    `  scorer at ≥ ${DEFAULT_THRESHOLD}:       precision ${f4(at.precision)}, recall ${f4(at.recall)}, F1 ${f4(at.f1)} (${at.truePositives} true, ${at.falsePositives} false links)`,
    best
      ? `  scorer best F1:       ${f4(best.f1)} at confidence ≥ ${best.threshold.toFixed(2)} (precision ${f4(best.precision)}, recall ${f4(best.recall)})`
      : '  scorer best F1:       no pairs',
    precise
      ? `  precision ≥ 0.99:     best recall ${f4(precise.recall)} at confidence ≥ ${precise.threshold.toFixed(2)} (precision ${f4(precise.precision)})`
      : '  precision ≥ 0.99:     not reached at any threshold',
    `  groups (--cluster):   precision ${f4(cluster.precision)}, recall ${f4(cluster.recall)}, F1 ${f4(cluster.f1)} (${cluster.links} pairs within groups)`,
    `  --strict-names:       at ≥ ${DEFAULT_THRESHOLD} precision ${f4(strictAt.precision)}, recall ${f4(strictAt.recall)}, F1 ${f4(strictAt.f1)}; best F1 ${strictBest ? f4(strictBest.f1) : '-'}`,
    `  baseline rule:        precision ${f4(baseline.precision)}, recall ${f4(baseline.recall)}, F1 ${f4(baseline.f1)} (${baseline.truePositives} true, ${baseline.links - baseline.truePositives} false links)`,
    `  time:                 ${((performance.now() - t) / 1000).toFixed(2)} s`,
  );
  if (examples > 0) detail.push(...examplesOf(kind, raw, run));
}
lines.push('', ...detail, `Run time: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
console.log(lines.join('\n'));
