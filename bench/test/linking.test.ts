import { describe, expect, it } from 'vitest';
import { Cleanup } from '../src/harness.ts';
import { CHECK_NAMES, formatLinkingReport, runLinkingBench } from '../src/linking-bench.ts';
import { expectComparison, expectLatency } from './figures.ts';

/**
 * The linking benchmark on a tiny data set: the whole system from its bundles on embedded servers
 * of its own (as `npm run bench:linking` runs it; `npm test` builds the bundles first). Figures are
 * checked for being figures, never for their size.
 */
describe('bench:linking', () => {
  it('seeds both stores, links every create and measures check-namlc-matches', { timeout: 120_000 }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL', 'LOG_LEVEL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runLinkingBench({ n: 300, iterations: 3, warmup: 1, seed: 7, env, log: () => {}, cleanup });
      expect(report.n).toBe(300);
      expect(Object.values(report.perAgency).reduce((a, b) => a + b)).toBe(300);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      // The linking service loaded every seeded record from its store at start.
      expect(report.indexLoad?.records).toBe(300);
      expect(Number.isFinite(report.indexLoad?.ms)).toBe(true);
      // Its estimate at start: under 1,000 named records, r = 1 and the fixed weights.
      expect(report.indexLoad?.estimate).toMatchObject({
        matchesPerRecord: 1,
        weights: { inUse: 'fixed', fixedBecause: 'fewer than 1000 named records' },
      });
      expect(Number.isFinite(report.linkingReadyMs)).toBe(true);
      // Its heap once loaded, after a full collection (the system runs it with --expose-gc).
      const memory = report.indexLoad?.memory;
      expect(memory?.collected).toBe(true);
      expect(memory?.heapUsedMiB).toBeGreaterThan(1);
      expect(memory?.rssMiB).toBeGreaterThan(memory?.heapUsedMiB ?? 0);
      // The heap over the 300 records (the heap is logged to a tenth of a MiB: 175 bytes per record here).
      const perRecord = ((memory?.heapUsedMiB ?? 0) * 2 ** 20) / 300;
      expect(Math.abs((memory?.heapBytesPerRecord ?? 0) - perRecord)).toBeLessThan(200);
      // Every create got its link, and every figure is a figure.
      const c = report.create;
      expect({ linked: c.linked, failures: c.failures }).toEqual({ linked: 3, failures: 0 });
      expect(c.links.min).toBeGreaterThanOrEqual(1);
      expectLatency(c.post, 3, 'POST');
      expectLatency(c.answeredToLink, 3, 'answered → link');
      expectLatency(c.sentToLink, 3, 'sent → link');
      expect(c.sentToLink.p50).toBeGreaterThanOrEqual(c.answeredToLink.p50);
      expect(report.checks.map((k) => k.name)).toEqual([...CHECK_NAMES]);
      for (const k of report.checks) expectComparison(k, 3);
      expect(report.checks[0]?.matches.min).toBeGreaterThanOrEqual(1);
      expect(report.checks[1]?.matches).toEqual({ min: 0, max: 0 });
      // No create failed, every matching query found its seeded record, no other query found any.
      expect(report.notes).toEqual([]);
      const text = formatLinkingReport(report);
      for (const name of CHECK_NAMES) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +300 records/);
      expect(text).toContain('POST answered → link readable');
      expect(text).toContain('Linked: 3 of 3 creates');
      expect(text).toContain('Weights: fixed (fewer than 1000 named records): name exact 7.5, typo 6.5, conflict -3;');
      expect(text).toMatch(
        /\nMemory: +heap [\d.,]+ MiB once the index was loaded, after a full collection \([\d.]+ KB per record, its own heap included\); resident [\d.,]+ MiB\n/,
      );
    } finally {
      await cleanup.run();
    }
  });
});
