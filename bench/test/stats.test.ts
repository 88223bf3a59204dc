import { describe, expect, it } from 'vitest';
import { Cleanup, formatStatsReport, runStatsBench, STATS_OPERATIONS } from '../src/stats-bench.ts';
import { expectLatency } from './figures.ts';

/**
 * The stats benchmark on a small history: the whole system from its bundles on embedded servers of
 * its own (as `npm run bench:stats` runs it). Figures are checked for being figures, never for
 * their size.
 */
describe('bench:stats', () => {
  it('seeds both stores, measures every path and every kind of change, and reports them', {
    timeout: 180_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runStatsBench({ n: 300, iterations: 2, warmup: 1, seed: 5, env, log: () => {}, cleanup });
      expect(report.perAgency).toEqual({ BPS: 100, FIA: 100, CUS: 100 });
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.operations.map((o) => o.name)).toEqual([...STATS_OPERATIONS]);
      for (const op of report.operations) expectLatency(op.latency, 2, op.name);
      const text = formatStatsReport(report);
      for (const name of STATS_OPERATIONS) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +300 records/);
    } finally {
      await cleanup.run();
    }
  });
});
