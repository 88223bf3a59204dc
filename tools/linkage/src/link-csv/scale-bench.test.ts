import { describe, expect, it } from 'vitest';
import { largeClusters, truePairCount } from '../eval/heldout.ts';
import { formatScaleBench, runScaleBench } from './scale-bench.ts';

describe('largeClusters', () => {
  it('makes exactly the records asked for, in groups of 1 to the largest, the same for a seed', () => {
    const records = largeClusters({ records: 3000, largest: 20 });
    expect(records).toHaveLength(3000);
    const sizes = new Map<string, number>();
    for (const r of records) sizes.set(r.entity, (sizes.get(r.entity) ?? 0) + 1);
    expect(Math.max(...sizes.values())).toBe(20);
    expect(Math.min(...sizes.values())).toBe(1);
    // Skewed: most people once or twice, a few in large groups.
    const counts = [...sizes.values()];
    expect(counts.filter((n) => n <= 2).length / counts.length).toBeGreaterThan(0.5);
    expect(counts.filter((n) => n >= 10).length).toBeGreaterThan(5);
    expect(new Set(records.map((r) => r.id)).size).toBe(3000);
    expect(largeClusters({ records: 3000, largest: 20 })).toEqual(records);
    expect(largeClusters({ records: 3000, largest: 20, seed: 2 })).not.toEqual(records);
  });
});

describe('bench:link-csv', () => {
  it('times link-csv on a generated set both ways and scores what it wrote against the truth', {
    timeout: 120_000,
  }, () => {
    const report = runScaleBench({ records: 1500, largest: 20 });
    expect(report.records).toBe(1500);
    expect(report.truePairs).toBe(truePairCount(largeClusters({ records: 1500, largest: 20 })));
    expect(report.candidatePairs).toBeGreaterThan(report.truePairs / 2);
    for (const run of [report.pairs, report.cluster]) {
      expect(run.seconds).toBeGreaterThan(0);
      expect(run.maxRssMiB).toBeGreaterThan(20);
      expect(run.quality.links).toBeGreaterThan(0);
      // Measured, not asserted as targets: the figures are those of a real linkage of the set.
      expect(run.quality.precision).toBeGreaterThan(0.5);
      expect(run.quality.recall).toBeGreaterThan(0.5);
    }
    expect(report.pairs.summary).toMatch(/^link-csv: 1500 records \(dedupe\), \d+ candidate pairs/);
    const text = formatScaleBench(report);
    expect(text).toMatch(/^Machine: \d+ × .+, [\d.]+ GiB, Node v\d+/);
    expect(text).toContain('1,500 records of');
    expect(text).toMatch(/link-csv \(pairs\) +[\d.]+ s +\d+ MiB +precision 0\.\d{4} +recall 0\.\d{4}/);
    expect(text).toMatch(/link-csv --cluster +[\d.]+ s +\d+ MiB/);
  });
});
