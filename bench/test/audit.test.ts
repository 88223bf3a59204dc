import { describe, expect, it } from 'vitest';
import {
  AUDIT_READS,
  Cleanup,
  formatAuditReport,
  runAuditBench,
  TRAIL_CONCURRENCY,
  TRAIL_MODES,
} from '../src/audit-bench.ts';
import { expectLatency } from './figures.ts';

/**
 * The audit benchmark on a small trail: its own FerretDB (our build) and NATS, the audit service
 * in process (as `npm run bench:audit` runs it). Figures are checked for being figures, never for
 * their size; the counts, and every page against the same query sorted by seq, exactly (notes).
 */
describe('bench:audit', () => {
  it('stores the events through the writer and straight, reads the trail, verifies and removes a tenth', {
    timeout: 180_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runAuditBench({
        entries: 600,
        iterations: 2,
        warmup: 1,
        seed: 4,
        env,
        log: () => {},
        cleanup,
      });
      expect(report.notes).toEqual(['The page "at offset 5,000" is at offset 300: N is too small.']);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.writer.runs).toBeGreaterThan(0);
      expect(report.direct.events).toBe(600);
      // The request path: every event in the stream; one message each before group commit, and
      // with it one per request when requests come one at a time, far fewer when 64 do.
      expect(report.trail.map((x) => [x.concurrency, x.mode])).toEqual(
        TRAIL_CONCURRENCY.flatMap((c) => TRAIL_MODES.map((m) => [c, m])),
      );
      for (const row of report.trail) {
        expect(row.events).toBe(600);
        expectLatency(row.latency, 600, `${row.mode} ${row.concurrency}`);
        if (row.mode === 'one message per event' || row.concurrency === 1) expect(row.messages).toBe(600);
        else expect(row.messages).toBeLessThan(600 / 4);
        expect(row.natsCpuMs).not.toBeNull();
      }
      expect(report.reads.map((r) => r.name)).toEqual([...AUDIT_READS]);
      for (const read of report.reads) {
        expectLatency(read.latency, 2, read.name);
        expect(read.total.max, read.name).toBe(read.total.expected);
        expect(read.items, read.name).toBeGreaterThan(0);
      }
      expect(report.verify).toMatchObject({ entries: 600, holds: true });
      expect(report.retention.removed).toBeGreaterThan(0);
      expect(report.verifyAfter).toMatchObject({ entries: 600 - report.retention.removed, holds: true });
      const text = formatAuditReport(report);
      for (const name of AUDIT_READS) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +600 audit events/);
    } finally {
      await cleanup.run();
    }
  });
});
