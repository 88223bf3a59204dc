import { describe, expect, it } from 'vitest';
import { Cleanup, formatLoadReport, LOAD_OPERATIONS, runLoadBench, UPLOAD_ROWS } from '../src/load-bench.ts';

/**
 * The load test on a small data set for a few seconds: the whole system from its bundles on
 * embedded servers of its own (as `npm run bench:load` runs it), with a mix that gives every
 * operation the same share so each one is made. Figures are checked for being figures, never for
 * their size; errors are checked for being none.
 */
describe('bench:load', () => {
  it('signs users in, drives every operation of the mix without errors, and reports them', {
    timeout: 240_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const shares = Object.fromEntries(LOAD_OPERATIONS.map((o) => [o.name, 10]));
    const cleanup = new Cleanup();
    try {
      const report = await runLoadBench({
        users: 6,
        admins: 1,
        seconds: 10,
        warmup: 2,
        records: 600,
        think: 20,
        seed: 3,
        shares,
        // A request every 10-30 ms per user is hundreds of times an officer's pace: over the
        // gateway's per-user limits, which `npm run bench:load` keeps on.
        userLimits: 'off',
        env,
        log: () => {},
        cleanup,
      });
      expect(report.perAgency).toEqual({ BPS: 200, FIA: 200, CUS: 200 });
      expect(report.users).toEqual({ BPS: 2, FIA: 2, CUS: 2 });
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.operations.map((o) => o.name)).toEqual(LOAD_OPERATIONS.map((o) => o.name));
      for (const o of report.operations) {
        expect(o.requests, o.name).toBeGreaterThan(0);
        for (const figure of [o.p50, o.p95, o.p99, o.max, o.perSecond])
          expect(Number.isFinite(figure), o.name).toBe(true);
        expect({ name: o.name, http: o.statuses, timeouts: o.timeouts, conn: o.connectionErrors }).toEqual({
          name: o.name,
          http: {},
          timeouts: 0,
          conn: 0,
        });
      }
      expect(report.idleConnectionErrors).toBe(0);
      expect(report.warmup.seconds).toBe(2);
      expect(report.warmup.requests).toBeGreaterThan(0);
      expect(report.warmup.errors).toBe(0);
      // Every service's runtime was read from its metrics, at the start and the end of the run.
      expect(report.runtimes.map((x) => x.service).sort()).toEqual(
        ['audit', 'auth', 'ingest', 'linking', 'ops', 'records', 'report', 'stats'].sort(),
      );
      for (const x of report.runtimes) {
        for (const figure of [x.loopDelayMax, x.loopDelayP99, x.majorGcMs, x.gcMs, x.heapMb])
          expect(Number.isFinite(figure), x.service).toBe(true);
      }
      expect(report.notes).toEqual([]);
      const of = (name: string) => report.operations.find((o) => o.name === name) as (typeof report.operations)[0];
      const warmed = (name: string) => report.warmup.operations[name] ?? 0;
      expect(report.uploads.jobs).toBe(of('upload').requests + warmed('upload'));
      expect(report.uploads.completed).toBe(report.uploads.jobs);
      // Records at the end: the seeded ones, every create and uploaded row answered (in the warm-up
      // too), and at most those of a create or an upload the end of the run cut (sent, never read).
      const least = 600 + of('create').requests + warmed('create') + report.uploads.created;
      expect(report.recordsAtEnd).toBeGreaterThanOrEqual(least);
      expect(report.recordsAtEnd).toBeLessThanOrEqual(
        least + of('create').cutAtEnd + of('upload').cutAtEnd * UPLOAD_ROWS,
      );
      const text = formatLoadReport(report);
      for (const o of LOAD_OPERATIONS) expect(text).toContain(o.name);
      expect(text).toMatch(/^Machine: .+\nData: +600 records seeded/);
      expect(text).toContain('0 errors: met');
    } finally {
      await cleanup.run();
    }
  });
});
