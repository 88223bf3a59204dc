import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRealDate } from '@nrad/contracts';
import { linkageDataDir } from '@nrad/linkage-tools';
import { describe, expect, it } from 'vitest';
import { Cleanup } from '../src/harness.ts';
import {
  crossAgencyPairs,
  formatTruthReport,
  labelledSet,
  relinkingSettled,
  runTruthBench,
} from '../src/truth-bench.ts';

describe('linkage:service', () => {
  it('counts the truth as the pairs of one person held by two agencies', () => {
    expect(
      crossAgencyPairs([
        { entity: 'a', agency: 'BPS' },
        { entity: 'a', agency: 'BPS' },
        { entity: 'a', agency: 'FIA' },
        { entity: 'b', agency: 'CUS' },
        { entity: 'b', agency: 'CUS' },
        { entity: 'c', agency: 'BPS' },
        { entity: 'c', agency: 'CUS' },
      ]),
    ).toEqual([
      [0, 2],
      [1, 2],
      [5, 6],
    ]); // 3: a's 2 of 3 pairs cross (the BPS pair does not); b: none; c: 1
  });

  it('waits for the last pass of linking again asked for, however many requests one pass answered', async () => {
    const logs = mkdtempSync(path.join(os.tmpdir(), 'nrad-relinked-'));
    try {
      const line = (time: number, rest: object) => `${JSON.stringify({ level: 30, time, ...rest })}\n`;
      const asked = { records: 10, msg: 'linking again after the weights changed' };
      writeFileSync(path.join(logs, 'linking.log'), line(1, asked) + line(2, asked));
      const settled = relinkingSettled(logs, 20_000);
      let done = false;
      void settled.then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(done).toBe(false); // asked twice, nothing ended yet
      const tally = { records: 20, links: 1, possibleMatches: 7 };
      appendFileSync(
        path.join(logs, 'linking.log'),
        line(3, { relinked: tally, msg: 'linked again after the weights changed' }),
      );
      expect(await settled).toEqual({ passes: 1, links: 1, possibleMatches: 7 });
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });

  // FEBRL where shared/ is there (skipped elsewhere, as tools/linkage's eval/febrl.test.ts).
  const febrlPresent = existsSync(path.join(linkageDataDir(), 'dataset4b.csv'));
  it.skipIf(!febrlPresent)("gives FEBRL 4's records a name and a date of birth as the upload takes them", () => {
    const febrl = labelledSet('febrl4');
    expect(febrl).toHaveLength(10_000);
    expect(febrl.filter((r) => /^\d{4}-\d{2}-\d{2}$/.test(r.dob)).length).toBeGreaterThan(9_000);
    expect(new Set(febrl.map((r) => r.entity)).size).toBe(5_000);
  });

  it("gives a held-out set's records whole names", () => {
    const clusters = labelledSet('clusters');
    expect(clusters.every((r) => r.name === r.name.trim() && !r.name.includes('  '))).toBe(true);
  });

  it('uploads a labelled set across the agencies and counts auto-links and possible matches against the truth', {
    timeout: 240_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL', 'LOG_LEVEL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const r = await runTruthBench({
        set: 'clusters',
        seed: 2,
        limit: 400,
        waitMs: 120_000,
        env,
        log: () => {},
        cleanup,
      });
      expect(r.records).toBe(400);
      // The upload creates the rows with a name and a real date of birth (from 1800, not in the
      // future): the set's impossible dates are refused, and nothing else.
      const today = new Date().toISOString().slice(0, 10);
      const valid = labelledSet('clusters', 2)
        .slice(0, 400)
        .filter((x) => x.name !== '' && isRealDate(x.dob) && x.dob < today);
      expect(r.created).toBe(valid.length);
      expect(r.refused).toBe(400 - valid.length);
      expect(r.truePairs).toBeGreaterThan(50);
      expect(r.auto.pairs).toBeGreaterThan(0);
      // The service's auto-links on a set it was never tuned on: mostly right, most of the truth found.
      expect(r.auto.truePairs / r.auto.pairs).toBeGreaterThanOrEqual(0.95);
      expect(r.auto.truePairs + r.review.truePairs).toBeGreaterThan(r.truePairs / 2);
      expect(Object.values(r.classes).reduce((sum, c) => sum + c.pairs, 0)).toBe(r.review.pairs);
      // Some of the truth is of an uncertain class (partial names: the set's one-word records),
      // and auto-linking found more of the rest than of the whole.
      expect(r.noClass.truePairs).toBeGreaterThan(0);
      expect(r.noClass.truePairs).toBeLessThan(r.truePairs);
      expect(r.noClass.auto).toBeLessThanOrEqual(r.auto.truePairs);
      expect(r.noClass.auto / r.noClass.truePairs).toBeGreaterThan(r.auto.truePairs / r.truePairs);
      // Under 1,000 named records the service keeps its fixed weights, and its log says so.
      expect(r.estimate).toMatchObject({ inUse: 'fixed', fixedBecause: 'fewer than 1000 named records' });
      // So the weights never changed, and nothing was linked again.
      expect(r.relinked).toEqual({ passes: 0, links: 0, possibleMatches: 0 });
      expect(r.notes).toEqual([]);
      const text = formatTruthReport(r);
      expect(text).toMatch(/\nSet: +clusters, 400 records spread at random over BPS, FIA and CUS/);
      expect(text).toMatch(/\n {9}linked again after the weights changed: no pass\n/);
      expect(text).toMatch(/\nAuto-links: precision [\d.]+ \(target ≥ 0\.99\), recall [\d.]+/);
      expect(text).toMatch(/\n {2}of the [\d,]+ true pairs of no uncertain class .+: [\d.]+\n/);
    } finally {
      await cleanup.run();
    }
  });
});
