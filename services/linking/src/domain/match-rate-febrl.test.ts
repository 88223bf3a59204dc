import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Organization } from '@nrad/contracts';
import { linkageDataDir, loadFebrl, qualityAt, reliability, type ScoredPair } from '@nrad/linkage-tools';
import {
  candidatePairs,
  DEFAULT_THRESHOLD,
  estimateWeights,
  keyWeights,
  PART_OF_NAME,
  prepareRecord,
} from '@nrad/matching';
import { beforeAll, describe, expect, it } from 'vitest';
import { entryFor, MatchIndex } from './match-index.ts';
import { MatchRate, type MatchRateEstimate } from './match-rate.ts';
import { caseRecord } from './test-record.ts';

const dir = linkageDataDir();
const files = ['dataset1.csv', 'dataset2.csv', 'dataset3.csv'].map((f) => path.join(dir, f));
const ORGANIZATIONS: Organization[] = ['BPS', 'FIA', 'CUS'];

/** A FEBRL record's agency: by the first byte of a hash of its rec_id (the same every run). */
const organizationOf = (recId: string) =>
  ORGANIZATIONS[(createHash('sha256').update(recId).digest()[0] as number) % ORGANIZATIONS.length] as Organization;

/**
 * One FEBRL file as the service would hold it (the name in one field, no incident date or amount),
 * its records spread over the three agencies; the service's estimate adopted by the index; every
 * record searched as auto-linking searches (the other agencies, the default threshold). A pair is
 * linked when either of its records finds the other; it is true when both are one person.
 */
function serviceRun(file: string) {
  const raw = loadFebrl(file);
  const index = new MatchIndex();
  const entityOf = new Map<string, string>();
  for (const r of raw) {
    const entry = entryFor(
      caseRecord({
        suspectName: [r.givenName, r.surname].filter(Boolean).join(' '),
        suspectDob: r.suspectDob ?? '',
        incidentDate: '',
        caseAmount: '',
        organization: organizationOf(r.id),
      }),
    );
    index.put(entry);
    entityOf.set(entry.id, r.entity);
  }
  const estimate = new MatchRate(index).estimate();
  const linked = new Map<string, boolean>();
  index.forEachActive((entry) => {
    const filter = { excludeOrganization: entry.organization, excludeId: entry.id, threshold: DEFAULT_THRESHOLD };
    for (const found of index.find(entry.prepared, entry.keys, filter)) {
      const pair = [entry.id, found.entry.id].sort().join(':');
      linked.set(pair, entityOf.get(entry.id) === entityOf.get(found.entry.id));
    }
  });
  // True pairs across agencies: records of one person in different agencies.
  const byEntity = new Map<string, Map<string, number>>();
  index.forEachActive((entry) => {
    const counts = byEntity.get(entityOf.get(entry.id) as string) ?? new Map<string, number>();
    counts.set(entry.organization, (counts.get(entry.organization) ?? 0) + 1);
    byEntity.set(entityOf.get(entry.id) as string, counts);
  });
  let truePairs = 0;
  for (const counts of byEntity.values()) {
    const n = [...counts.values()].reduce((a, b) => a + b, 0);
    truePairs += (n * n - [...counts.values()].reduce((a, c) => a + c * c, 0)) / 2;
  }
  const scored = [...linked.values()].map((isMatch) => ({ confidence: 100, isMatch }));
  const quality = qualityAt(scored, truePairs, DEFAULT_THRESHOLD);
  // Every pair a search finds at all, with its confidence: with the weights adopted, then the fixed.
  // Pairs whose names agree only in part (one word against a fuller name) are capped by rule, not
  // by their odds (ScoreOptions.wholeNames, issue 34): counted apart, not in the reliability.
  let partial = 0;
  const found = () => {
    const pairs = new Map<string, ScoredPair>();
    partial = 0;
    index.forEachActive((entry) => {
      const filter = { excludeOrganization: entry.organization, excludeId: entry.id, threshold: 0.01 };
      for (const hit of index.find(entry.prepared, entry.keys, filter)) {
        if (hit.result.explanation[0]?.detail?.includes(PART_OF_NAME)) {
          partial++;
          continue;
        }
        const pair = [entry.id, hit.entry.id].sort().join(':');
        pairs.set(pair, {
          confidence: hit.result.confidence,
          isMatch: entityOf.get(entry.id) === entityOf.get(hit.entry.id),
        });
      }
    });
    return [...pairs.values()];
  };
  const shown = found();
  const partialPairs = partial;
  index.setWeights(undefined);
  const shownFixed = found();
  // link-csv's weights for the same file (its records with their name parts, every candidate pair).
  const records = raw.map((r) => prepareRecord(r));
  const linkCsv = estimateWeights(records, candidatePairs(records).pairs)?.weights;
  return { estimate, quality, linkCsv, shown, shownFixed, partialPairs, name: path.basename(file) };
}

const rounded = (levels: Record<string, number>) =>
  Object.entries(levels)
    .map(([level, w]) => `${level} ${w.toFixed(2)}`)
    .join(', ');

// The service's estimate of its weights (domain/match-rate.ts) on FEBRL 1–3, against link-csv's
// and against the truth (skipped where shared/ is absent, as tools/linkage's eval/febrl.test.ts).
describe.skipIf(!files.every((f) => existsSync(f)))("the service's weights on FEBRL 1–3", () => {
  // Read in the tests, not while collecting them: a skipped block's body still runs.
  let runs: Array<ReturnType<typeof serviceRun>> = [];
  beforeAll(() => {
    runs = files.map(serviceRun);
    for (const run of runs) {
      const { weights, matchesPerRecord, ms } = run.estimate as MatchRateEstimate;
      const service = keyWeights(weights.estimate?.weights);
      const adopted = keyWeights(weights.adopted);
      const linkCsv = keyWeights(run.linkCsv);
      console.warn(
        `${run.name}: ${weights.adopted ? 'estimated' : `fixed (${weights.fixedBecause})`}, r ${matchesPerRecord.toFixed(3)}, ${ms} ms\n` +
          `  service  name ${rounded(service.name)}; dob ${rounded(service.dob)}\n` +
          `  adopted  name ${rounded(adopted.name)}; dob ${rounded(adopted.dob)}\n` +
          `  link-csv name ${rounded(linkCsv.name)}; dob ${rounded(linkCsv.dob)}\n` +
          `  at ${DEFAULT_THRESHOLD}: precision ${run.quality.precision.toFixed(4)}, recall ${run.quality.recall.toFixed(4)} ` +
          `(${run.quality.truePositives} true, ${run.quality.falsePositives} false links); ` +
          `${run.partialPairs} pairs found with the names agreeing only in part`,
      );
    }
  }, 120_000);

  it('adopts the weights it estimates from each file', () => {
    for (const run of runs) {
      expect(run.estimate.weights.fixedBecause, run.name).toBeUndefined();
      expect(run.estimate.weights.adopted, run.name).toBeDefined();
    }
  });

  it("estimates weights close to link-csv's on the same file", () => {
    // Measured (2026-11-25), service − link-csv, in bits: name exact +0.06/−0.01/+0.01, typo
    // +0.21/−0.14/−0.02, conflict −0.09/+0.15/+0.06; dob exact +0.26/+0.14/+0.18, slip
    // +0.40/−1.15/−0.54, mismatch −0.45/+0.28/+0.18. The service sees a sample (2,000 of 5,000
    // records; all 1,000 of FEBRL 1) and only pairs across agencies (about 2 in 3 true pairs), so
    // its sessions are half link-csv's or less. Most levels rest on hundreds of pairs: 0.5 bits.
    // A slip of the date of birth is seen in 1–2% of the matches of the date session, 6–10 pairs
    // on FEBRL 1 and 2, and log2(m) of so few has a standard error of about 0.5 bits: 1.5.
    const tolerance = { name: { exact: 0.5, typo: 0.5, conflict: 0.5 }, dob: { exact: 0.5, slip: 1.5, mismatch: 0.5 } };
    for (const run of runs) {
      const service = keyWeights(run.estimate.weights.estimate?.weights);
      const linkCsv = keyWeights(run.linkCsv);
      for (const field of ['name', 'dob'] as const) {
        for (const [level, w] of Object.entries(service[field])) {
          const other = linkCsv[field][level as keyof (typeof linkCsv)[typeof field]];
          const allowed = tolerance[field][level as keyof (typeof tolerance)[typeof field]];
          expect(Math.abs(w - other), `${run.name} ${field} ${level}`).toBeLessThanOrEqual(allowed);
        }
      }
    }
  });

  it("tabulates the reliability of the service's confidence, both with the weights it adopts and the fixed ones", () => {
    const table = (pairs: ScoredPair[]) => {
      const { bands, calibrationError } = reliability(pairs);
      const rows = bands.filter((b) => b.pairs > 0);
      return {
        calibrationError,
        text: rows
          .map(
            (b) =>
              `[${b.low}, ${b.high}) ${b.pairs} at ${b.meanConfidence.toFixed(1)}%, ${(100 * b.shareTrue).toFixed(1)}% true`,
          )
          .join('; '),
      };
    };
    const estimated = table(runs.flatMap((r) => r.shown));
    const fixed = table(runs.flatMap((r) => r.shownFixed));
    console.warn(
      `service, FEBRL 1–3 over three agencies, weights adopted: error ${(100 * estimated.calibrationError).toFixed(2)} points: ${estimated.text}`,
    );
    console.warn(`service, fixed weights: error ${(100 * fixed.calibrationError).toFixed(2)} points: ${fixed.text}`);
    // Measured (2026-11-27, names agreeing only in part left out: they are capped by rule): 2.37
    // and 1.11 points (2026-11-25, before that rule: 1.39 and 0.71). The estimated weights' middle
    // bands are over-confident, as link-csv's (ADR 0007).
    expect(estimated.calibrationError).toBeLessThanOrEqual(0.03);
    expect(fixed.calibrationError).toBeLessThanOrEqual(0.015);
  });

  it('links pairs across agencies at precision ≥ 0.985 at the default threshold, scoring as the service does', () => {
    // Measured (2026-11-27), the names agreeing on whole words (issue 34): precision 1.0000,
    // 0.9886, 0.9930; recall 0.8000, 0.7287, 0.7118. FEBRL leaves out a given name or a surname in
    // many records, and one name word beside a fuller name no longer links or discloses (ADR 0007).
    // Before that rule (2026-11-25): precision 1.0000, 0.9894, 0.9944; recall 0.9529, 0.9280, 0.9283.
    const recallFloors = [0.78, 0.71, 0.69];
    runs.forEach((run, k) => {
      expect(run.quality.precision, run.name).toBeGreaterThanOrEqual(0.985);
      expect(run.quality.recall, run.name).toBeGreaterThanOrEqual(recallFloors[k] as number);
    });
  });
});
