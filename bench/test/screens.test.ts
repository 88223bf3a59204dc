import { describe, expect, it } from 'vitest';
import { Cleanup, formatScreensReport, runScreensBench, SCREEN_OPERATIONS } from '../src/screens-bench.ts';
import { expectLatency } from './figures.ts';

/**
 * The screens benchmark on a small data set: the whole system from its bundles on embedded servers
 * of its own, and Chromium (as `npm run bench:screens` runs it). Figures are checked for being
 * figures, never for their size.
 */
describe('bench:screens', () => {
  it('seeds records, measures every screen operation in Chromium and reports them', {
    timeout: 240_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runScreensBench({ n: 360, iterations: 2, warmup: 0, seed: 3, env, log: () => {}, cleanup });
      expect(report.perAgency).toEqual({ BPS: 120, FIA: 120, CUS: 120 });
      expect(report.deleted).toBe(12);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.operations.map((o) => o.name)).toEqual([...SCREEN_OPERATIONS]);
      for (const op of report.operations) expectLatency(op.latency, 2, op.name);
      expect(report.notes).toEqual([]);
      const text = formatScreensReport(report);
      for (const name of SCREEN_OPERATIONS) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +360 records/);
    } finally {
      await cleanup.run();
    }
  });
});
