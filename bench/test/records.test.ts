import { describe, expect, it } from 'vitest';
import { Cleanup, OPERATION_NAMES, runRecordsBench } from '../src/records-bench.ts';
import { formatReport } from '../src/report.ts';
import { expectComparison } from './figures.ts';

/**
 * The benchmark on a tiny data set: the whole system from its bundles on embedded servers of its
 * own (as `npm run bench:records` runs it; `npm test` builds the bundles first). Figures are
 * checked for being figures, never for their size.
 */
describe('bench:records', () => {
  it('seeds, runs every operation both ways and reports them', { timeout: 120_000 }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runRecordsBench({
        n: 200,
        iterations: 2,
        warmup: 0,
        budgetSeconds: 60,
        seed: 7,
        env,
        log: () => {},
        cleanup,
      });
      expect(report.n).toBe(200);
      expect(Object.values(report.perAgency).reduce((a, b) => a + b)).toBe(200);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.operations.map((o) => o.name)).toEqual([...OPERATION_NAMES]);
      for (const op of report.operations) expectComparison(op, 2);
      // Both paths counted the same records, and every search found the record its value came from.
      expect(report.notes.filter((n) => !n.startsWith('create: the service cleared'))).toEqual([]);
      const text = formatReport(report);
      for (const name of OPERATION_NAMES) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +200 records/);
    } finally {
      await cleanup.run();
    }
  });
});
