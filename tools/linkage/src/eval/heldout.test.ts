import { DEFAULT_THRESHOLD } from '@nrad/matching';
import { describe, expect, it } from 'vitest';
import {
  baselineRule,
  dedupeHeldout,
  dobsWithinOneSlip,
  generateHeldout,
  groupingQuality,
  HELDOUT_KINDS,
  HELDOUT_NAMES,
  type HeldoutKind,
  type HeldoutRecord,
  truePairCount,
} from './heldout.ts';
import { bestF1, qualityAt } from './metrics.ts';

const entitySizes = (records: readonly HeldoutRecord[]) => {
  const sizes = new Map<string, number>();
  for (const r of records) sizes.set(r.entity, (sizes.get(r.entity) ?? 0) + 1);
  return sizes;
};

const byEntity = (records: readonly HeldoutRecord[]) => {
  const groups = new Map<string, HeldoutRecord[]>();
  for (const r of records) groups.set(r.entity, [...(groups.get(r.entity) ?? []), r]);
  return groups;
};

/** Whether 'YYYY-MM-DD' is a real calendar date. */
const isRealDate = (text: string) => {
  const [y, m, d] = text.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
};

const digits = (dob: string) => dob.replaceAll('-', '');

/** How a corrupted date of birth differs from the true one. */
function dobChange(truth: string, written: string): string {
  const [a, b] = [digits(truth), digits(written)];
  if (a === b) return 'same';
  const diff = [...a].flatMap((c, i) => (c !== b[i] ? [i] : []));
  if (diff.length === 1) return 'digit';
  if (diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!]) return 'neighbours';
  if (a.slice(0, 4) === b.slice(0, 4) && a.slice(4, 6) === b.slice(6, 8) && a.slice(6, 8) === b.slice(4, 6)) {
    return 'dayMonth';
  }
  const parts = [a.slice(0, 4) !== b.slice(0, 4), a.slice(4, 6) !== b.slice(4, 6), a.slice(6, 8) !== b.slice(6, 8)];
  return parts.filter(Boolean).length === 1 ? 'part' : 'other';
}

describe('generateHeldout', () => {
  it('embeds gendered given names (≥ 150) and surnames (≥ 300), each once', () => {
    const given = [...HELDOUT_NAMES.female, ...HELDOUT_NAMES.male];
    expect(given.length).toBeGreaterThanOrEqual(150);
    expect(HELDOUT_NAMES.female.length).toBeGreaterThanOrEqual(75);
    expect(HELDOUT_NAMES.male.length).toBeGreaterThanOrEqual(75);
    expect(HELDOUT_NAMES.surnames.length).toBeGreaterThanOrEqual(300);
    expect(new Set(given).size).toBe(given.length);
    expect(new Set(HELDOUT_NAMES.surnames).size).toBe(HELDOUT_NAMES.surnames.length);
  });

  it.each(HELDOUT_KINDS)('is deterministic: %s gives the same records for a seed, others for another', (kind) => {
    const first = generateHeldout(kind, 7);
    expect(generateHeldout(kind, 7)).toEqual(first);
    expect(generateHeldout(kind)).toEqual(generateHeldout(kind, 1));
    expect(generateHeldout(kind, 8)).not.toEqual(first);
    expect(new Set(first.map((r) => r.id)).size).toBe(first.length);
  });

  it('typos: 9,000 people, 1,000 of them twice; names skewed, some common', () => {
    const records = generateHeldout('typos');
    expect(records).toHaveLength(10_000);
    const sizes = entitySizes(records);
    expect(sizes.size).toBe(9000);
    expect(Math.max(...sizes.values())).toBe(2);
    expect(truePairCount(records)).toBe(1000);
    const surnames = new Map<string, number>();
    for (const r of records) surnames.set(r.surname, (surnames.get(r.surname) ?? 0) + 1);
    const commonest = Math.max(...surnames.values());
    expect(commonest / records.length).toBeGreaterThan(0.008); // Zipf-like: the commonest ~1.5%
    expect(commonest / records.length).toBeLessThan(0.04);
    for (const r of records) expect(Number(r.suspectDob.slice(0, 4))).toBeGreaterThan(0);
  });

  it('typos: duplicates carry 1–3 errors (mostly 1–2) of every kind claimed, impossible dates kept as written', () => {
    const records = generateHeldout('typos');
    const counts = [0, 0, 0, 0];
    const dobKinds = new Map<string, number>();
    let impossible = 0;
    for (const [, pair] of byEntity(records)) {
      if (pair.length !== 2) continue;
      const org = pair.find((r) => r.id.endsWith('-org'))!;
      const dup = pair.find((r) => r.id.endsWith('-dup'))!;
      const errors =
        Number(org.givenName !== dup.givenName) +
        Number(org.surname !== dup.surname) +
        Number(org.suspectDob !== dup.suspectDob);
      counts[errors]!++;
      if (org.suspectDob !== dup.suspectDob) {
        const kind = dobChange(org.suspectDob, dup.suspectDob);
        dobKinds.set(kind, (dobKinds.get(kind) ?? 0) + 1);
        if (!isRealDate(dup.suspectDob)) impossible++;
      }
    }
    expect(counts[0]).toBe(0);
    expect(counts[1]! + counts[2]!).toBeGreaterThanOrEqual(800);
    expect(counts[3]).toBeGreaterThan(0);
    for (const kind of ['digit', 'neighbours', 'dayMonth', 'part']) expect(dobKinds.get(kind) ?? 0).toBeGreaterThan(30);
    expect(dobKinds.get('other') ?? 0).toBe(0);
    expect(impossible).toBeGreaterThan(50); // '1975-13-42' and the like, as written
    expect(records.some((r) => /-1[3-9]-|-[2-9]\d-/.test(r.suspectDob))).toBe(true);
    expect(records.some((r) => /-(3[2-9]|[4-9]\d)$/.test(r.suspectDob))).toBe(true);
  });

  it('typos: ~3% of the people are twins of another — same surname and date of birth, another given name', () => {
    const originals = generateHeldout('typos').filter((r) => r.id.endsWith('-org'));
    const bySurnameDob = new Map<string, HeldoutRecord[]>();
    for (const r of originals) {
      const key = `${r.surname}|${r.suspectDob}`;
      bySurnameDob.set(key, [...(bySurnameDob.get(key) ?? []), r]);
    }
    const twins = [...bySurnameDob.values()].filter(
      (g) => g.length > 1 && new Set(g.map((r) => r.givenName)).size === g.length,
    );
    expect(twins.length).toBeGreaterThanOrEqual(0.025 * 9000);
    expect(twins.length).toBeLessThanOrEqual(0.035 * 9000);
  });

  it('oneWord: 3,000 records, 1,000 pairs; ~40% lack a name part, with complementary pairs', () => {
    const records = generateHeldout('oneWord');
    expect(records).toHaveLength(3000);
    expect(truePairCount(records)).toBe(1000);
    const partial = records.filter((r) => (r.givenName === '') !== (r.surname === '')).length;
    expect(records.every((r) => r.givenName !== '' || r.surname !== '')).toBe(true);
    expect(partial / records.length).toBeGreaterThan(0.35);
    expect(partial / records.length).toBeLessThan(0.45);
    const pattern = (r: HeldoutRecord) => (r.givenName && r.surname ? 'both' : r.givenName ? 'given' : 'surname');
    const patterns = new Map<string, number>();
    for (const [, pair] of byEntity(records)) {
      if (pair.length !== 2) continue;
      const org = pair.find((r) => r.id.endsWith('-org'))!;
      const dup = pair.find((r) => r.id.endsWith('-dup'))!;
      const key = `${pattern(org)}/${pattern(dup)}`;
      patterns.set(key, (patterns.get(key) ?? 0) + 1);
    }
    // Complementary: the given name only on one, the surname only on the other (same person).
    expect((patterns.get('given/surname') ?? 0) + (patterns.get('surname/given') ?? 0)).toBeGreaterThan(60);
    expect((patterns.get('both/given') ?? 0) + (patterns.get('both/surname') ?? 0)).toBeGreaterThan(120);
    expect((patterns.get('given/both') ?? 0) + (patterns.get('surname/both') ?? 0)).toBeGreaterThan(60);
    expect(patterns.get('both/both') ?? 0).toBeGreaterThan(350);
  });

  it('clusters: ~500 people, 1–7 records each (skewed to 1–2), with swapped, missing and corrupted values', () => {
    const records = generateHeldout('clusters');
    const sizes = [...entitySizes(records).values()];
    expect(sizes).toHaveLength(500);
    expect(records.length).toBeGreaterThan(1300);
    expect(records.length).toBeLessThan(1700);
    expect(Math.max(...sizes)).toBe(7);
    expect(Math.min(...sizes)).toBe(1);
    expect(sizes.filter((n) => n <= 2).length).toBeGreaterThan(200);
    expect(sizes.filter((n) => n >= 5).length).toBeGreaterThan(40);
    expect(records.filter((r) => r.suspectDob === '').length).toBeGreaterThan(50);
    expect(records.filter((r) => r.givenName === '' || r.surname === '').length).toBeGreaterThan(50);
    // Given name and surname swapped: one record's given name is another's surname, and back.
    let swapped = 0;
    for (const [, group] of byEntity(records)) {
      if (group.some((a) => group.some((b) => a.givenName && a.givenName === b.surname && a.surname === b.givenName)))
        swapped++;
    }
    expect(swapped).toBeGreaterThan(20);
    expect(records.some((r) => r.suspectDob && !isRealDate(r.suspectDob))).toBe(true);
  });
});

describe('the baseline rule and grouping quality', () => {
  it('takes dates of birth equal or one slip apart', () => {
    expect(dobsWithinOneSlip('19750612', '19750612')).toBe(true);
    expect(dobsWithinOneSlip('19750612', '19751612')).toBe(true); // one digit (month 16)
    expect(dobsWithinOneSlip('19750612', '19756012')).toBe(true); // neighbours swapped
    expect(dobsWithinOneSlip('19750612', '19751206')).toBe(true); // day and month swapped
    expect(dobsWithinOneSlip('19750612', '19570612')).toBe(true); // year's digits swapped
    expect(dobsWithinOneSlip('19750612', '19760613')).toBe(false);
    expect(dobsWithinOneSlip('19750612', '19750621')).toBe(true); // day's digits swapped
    expect(dobsWithinOneSlip('19750612', '19750630')).toBe(false);
  });

  it('links on Jaro–Winkler ≥ 0.9 of both name parts; a missing part fails', () => {
    const r = (id: string, entity: string, givenName: string, surname: string, suspectDob: string) => ({
      id,
      entity,
      givenName,
      surname,
      suspectDob,
    });
    const records = [
      r('a', '1', 'Johanna', 'Schreiber', '1960-03-04'),
      r('b', '1', 'Johana', 'Schreiber', '1960-04-03'),
      r('c', '2', '', 'Keller', '1971-01-01'),
      r('d', '2', 'Maria', 'Keller', '1971-01-01'),
    ];
    expect(baselineRule(records)).toMatchObject({ links: 1, truePositives: 1, precision: 1, recall: 0.5 });
  });

  it('scores groups by the pairs within them', () => {
    const records = ['x', 'x', 'x', 'y', 'y'].map((entity, k) => ({
      id: String(k),
      entity,
      givenName: '',
      surname: '',
      suspectDob: '',
    }));
    // Groups {0,1}, {2,3}, {4}: one true pair of 4 found, one false pair.
    expect(groupingQuality(records, [1, 1, 2, 2, 3])).toMatchObject({ links: 2, truePositives: 1, precision: 0.5 });
    expect(groupingQuality(records, [1, 1, 2, 2, 3]).recall).toBe(0.25);
  });
});

/**
 * The scorer on the held-out sets (seed 1) at DEFAULT_THRESHOLD, as link-csv scores them (weights
 * estimated by EM, prior estimated from each set, pairs explained by other matches capped), kept as
 * floors about 0.01 below the figures of `npm run linkage:heldout` on 2026-11-25: blocking recall
 * 0.9690 / 0.8660 / 0.9058, precision 0.8057 / 0.9008 / 0.9786, F1 0.8664 / 0.8366 / 0.9174
 * (typos / oneWord / clusters), groups F1 on clusters 0.9603. (2026-11-24, before pairs explained
 * by other matches: precision 0.8029 / 0.8895 / 0.9642, F1 0.8648 / 0.8317 / 0.9110, groups
 * 0.9482. With the fixed weights and log2 N as the prior, at 40 uncalibrated: precision 0.7117 /
 * 0.8915 / 0.9626, F1 0.7972 / 0.7779 / 0.8368, groups 0.8971.) Typos' precision is still the
 * lowest because the scorer links twins (same surname and date of birth, another given name); the
 * baseline rule, which needs both name parts to agree, does not, and neither does link-csv
 * --strict-names (`strict`: precision 0.9781, F1 0.9566 on typos).
 */
const FLOORS: Record<
  HeldoutKind,
  { blocking: number; precision: number; f1: number; cluster?: number; strict?: { precision: number; f1: number } }
> = {
  typos: { blocking: 0.959, precision: 0.795, f1: 0.856, strict: { precision: 0.968, f1: 0.946 } },
  oneWord: { blocking: 0.856, precision: 0.89, f1: 0.826 },
  clusters: { blocking: 0.895, precision: 0.968, f1: 0.907, cluster: 0.95 },
  // 2026-11-27 (issue 36's further error models): blocking 0.9660 / 0.9780 / 0.9800 / 0.9650,
  // precision 0.8428 / 0.8453 / 0.2607 / 0.9086, F1 0.8806 / 0.8350 / 0.3842 / 0.9339. With 1% of
  // records a duplicate, link-csv's links at 80 are mostly twins and namesakes (207 false, 73 true):
  // what the service's review classes are for (linkage:eval's zones table).
  nicknames: { blocking: 0.956, precision: 0.832, f1: 0.87 },
  replaced: { blocking: 0.968, precision: 0.835, f1: 0.825 },
  duplicates1: { blocking: 0.97, precision: 0.25, f1: 0.374 },
  duplicates30: { blocking: 0.955, precision: 0.898, f1: 0.923 },
};

describe('scorer quality on the held-out sets', () => {
  // Each set scored when its test first needs it (some 1–14 s alone; several times that beside the
  // whole suite), so that no one hook has to score all eight in its time.
  const memo = new Map<HeldoutKind, { run: ReturnType<typeof dedupeHeldout>; base: ReturnType<typeof baselineRule> }>();
  const scored = (kind: HeldoutKind) => {
    let entry = memo.get(kind);
    if (!entry) {
      const records = generateHeldout(kind);
      entry = { run: dedupeHeldout(records, { cluster: kind === 'clusters' }), base: baselineRule(records) };
      memo.set(kind, entry);
    }
    return entry;
  };

  it.each(HELDOUT_KINDS)('%s: blocking recall, precision and F1 at the default threshold stay at today’s', (kind) => {
    const { run, base } = scored(kind);
    const floor = FLOORS[kind];
    const at = qualityAt(run.scored, run.truePairs, DEFAULT_THRESHOLD);
    const best = bestF1(run.scored, run.truePairs)!;
    const reachable = run.scored.filter((p) => p.isMatch).length / run.truePairs;
    const f4 = (x: number) => x.toFixed(4);
    console.warn(
      `heldout ${kind}: at ≥ ${DEFAULT_THRESHOLD} P ${f4(at.precision)} R ${f4(at.recall)} F1 ${f4(at.f1)}; best F1 ${f4(best.f1)} at ≥ ${best.threshold}; blocking recall ${f4(reachable)}${
        run.clusterQuality ? `; groups F1 ${f4(run.clusterQuality.f1)}` : ''
      }; baseline P ${f4(base.precision)} R ${f4(base.recall)} F1 ${f4(base.f1)}`,
    );
    expect(reachable).toBeGreaterThanOrEqual(floor.blocking);
    expect(at.precision).toBeGreaterThanOrEqual(floor.precision);
    expect(at.f1).toBeGreaterThanOrEqual(floor.f1);
    expect(best.f1).toBeGreaterThanOrEqual(at.f1);
    if (floor.cluster !== undefined) expect(run.clusterQuality?.f1).toBeGreaterThanOrEqual(floor.cluster);
  });

  it('typos with --strict-names: twins are no longer linked, and no true pair is lost to it', () => {
    const strict = dedupeHeldout(generateHeldout('typos'), { strictNames: true });
    const at = qualityAt(strict.scored, strict.truePairs, DEFAULT_THRESHOLD);
    const { run: typos } = scored('typos');
    const plain = qualityAt(typos.scored, typos.truePairs, DEFAULT_THRESHOLD);
    expect(at.precision).toBeGreaterThanOrEqual(FLOORS.typos.strict!.precision);
    expect(at.f1).toBeGreaterThanOrEqual(FLOORS.typos.strict!.f1);
    expect(at.falsePositives).toBeLessThan(plain.falsePositives / 5);
    expect(at.truePositives).toBeGreaterThanOrEqual(plain.truePositives - 0.01 * strict.truePairs);
  });
});
