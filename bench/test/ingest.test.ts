import { describe, expect, it } from 'vitest';
import { Cleanup, formatIngestReport, runIngestBench } from '../src/ingest-bench.ts';

/**
 * The batch upload benchmark on a small file: the whole system from its bundles on embedded
 * servers of its own (as `npm run bench:ingest` runs it). Figures are checked for being figures,
 * never for their size; the counts are checked exactly.
 */
describe('bench:ingest', () => {
  it('uploads a generated file through the gateway and times it to records, figures and links', {
    timeout: 240_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runIngestBench({
        n: 400,
        seed: 3,
        invalidPercent: 5,
        nearPercent: 5,
        secondRows: 30,
        env,
        log: () => {},
        cleanup,
      });
      expect(report.notes).toEqual([]);
      expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
      expect(report.invalid).toBeGreaterThan(0);
      expect(report.near).toBeGreaterThan(0);
      expect(report.result).toMatchObject({ totalRecords: 400, successfulRecords: 400 - report.invalid });
      expect(report.linksFound).toBe(report.near);
      for (const ms of [
        report.parseMs,
        report.acceptedMs,
        report.jobMs,
        report.readableMs,
        report.statsMs,
        report.linkedMs,
      ]) {
        expect(ms).toBeGreaterThan(0);
        expect(Number.isFinite(ms)).toBe(true);
      }
      expect(report.workerPeakRss).toBeGreaterThan(0);
      // Another agency's upload sent while the first was processed (issue 37).
      expect(report.second).toMatchObject({ rows: 30, created: 30, acceptedStatus: 202 });
      expect(report.second?.acceptedMs).toBeGreaterThan(0);
      expect(report.second?.polls.length).toBeGreaterThan(0);
      const text = formatIngestReport(report);
      expect(text).toMatch(/^Machine: .+\nStore: +FerretDB/);
      expect(text).toContain('end to end ÷ parse:');
      expect(text).toContain('Second agency (FIA), 30 rows');
    } finally {
      await cleanup.run();
    }
  });
});
