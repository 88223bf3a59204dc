import { describe, expect, it } from 'vitest';
import { formatBudgets } from '../src/quick.ts';
import { Cleanup, OPERATION_NAMES, RESTART_ROWS, restartStepRow, runRecordsBench } from '../src/records-bench.ts';
import { formatReport } from '../src/report.ts';
import { expectComparison, expectFound, expectLatency } from './figures.ts';

/** Informational notes every run may have (the others flag failures and totals that differ). */
const INFO_NOTES = ['create: the service cleared', 'keyset page (middle): the cursor was reached'];

/**
 * The benchmark on a tiny data set: the whole system from its bundles on embedded servers of its
 * own (as `npm run bench:records` runs it; `npm test` builds the bundles first), restarted once at
 * the end. Figures are checked for being figures, never for their size; totals are checked.
 */
describe('bench:records', () => {
  it('seeds, runs every operation both ways, restarts the system and reports them', { timeout: 300_000 }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    const n = 200;
    const iterations = 2;
    try {
      const report = await runRecordsBench({
        n,
        iterations,
        warmup: 0,
        budgetSeconds: 60,
        seed: 7,
        restarts: 1,
        deletedPercent: 10,
        env,
        log: () => {},
        cleanup,
      });
      expect(report.n).toBe(n);
      expect(Object.values(report.perAgency).reduce((a, b) => a + b)).toBe(n);
      const deleted = Object.values(report.deletedPerAgency ?? {});
      expect(deleted).toHaveLength(3);
      for (const count of deleted) expect(count).toBeGreaterThan(0);
      const deletedTotal = deleted.reduce((a, b) => a + b);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.operations.map((o) => o.name)).toEqual([...OPERATION_NAMES]);
      for (const op of report.operations) expectComparison(op, iterations);

      // Every list, count and search answered its total (the same both ways: no note below).
      const byName = new Map(report.operations.map((o) => [o.name, o]));
      for (const name of OPERATION_NAMES.filter((o) => o !== 'get' && o !== 'create')) {
        expectFound(byName.get(name), name);
      }
      // The deleted list shows the seeded deleted records of one agency; ADMIN sees every active
      // record: the seeded ones and those the create runs added (one through the gateway, one direct).
      expect(byName.get('deleted list')?.found?.max).toBeLessThanOrEqual(Math.max(...deleted));
      const active = n - deletedTotal + 2 * iterations;
      expect(byName.get('admin list')?.found).toEqual({ min: active, max: active });
      expect(report.notes.filter((note) => !INFO_NOTES.some((info) => note.startsWith(info)))).toEqual([]);
      expect(report.notes.some((note) => note.startsWith(INFO_NOTES[1] as string))).toBe(true);

      // One restart: every fixed row and each step of the start, once.
      const restarts = report.restarts;
      expect(restarts?.count).toBe(1);
      expect(restarts?.restarted).toEqual(expect.arrayContaining(['ferretdb', 'nats', 'redis', 'records', 'gateway']));
      const rows = restarts?.rows.map((r) => r.name) ?? [];
      for (const row of Object.values(RESTART_ROWS)) expect(rows).toContain(row);
      expect(rows).toContain(restartStepRow('records'));
      expect(rows).toContain(restartStepRow('gateway'));
      for (const row of restarts?.rows ?? []) expectLatency(row.latency, 1, row.name);

      const text = formatReport(report);
      for (const name of [...OPERATION_NAMES, ...Object.values(RESTART_ROWS)]) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+ × \d+, [\d.]+ GiB.*\nN: +200 records \(BPS \d+ \(\d+ deleted\), FIA/);
      expect(text).toContain('Percentiles are nearest-rank');
      // bench:quick's table: every operation with its ratio, held to its budget or marked as not held to one.
      const budgets = formatBudgets(report).split('\n');
      for (const name of OPERATION_NAMES) {
        const row = budgets.find((line) => line.startsWith(`${name} `));
        expect(row, name).toMatch(/^[a-zA-Z ()]+ +\d+\.\d\d× +(3×|1\.3×|—) +-?[\d.]+ +(yes|NO)$/);
      }
    } finally {
      await cleanup.run();
    }
  });
});
