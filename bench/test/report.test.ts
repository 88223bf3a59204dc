import { describe, expect, it } from 'vitest';
import { Cleanup, formatReportBench, REPORT_OPERATIONS, runReportBench } from '../src/report-bench.ts';
import { expectLatency } from './figures.ts';

/**
 * The report benchmark on a small history: the whole system from its bundles on embedded servers
 * of its own, with a local model server (as `npm run bench:report` runs it). Figures are checked
 * for being figures, never for their size.
 */
describe('bench:report', () => {
  it('seeds the stores and links, measures collecting figures and whole report requests, and reports them', {
    timeout: 180_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL', 'OPENAI_MODEL'])
      delete env[name];
    const cleanup = new Cleanup();
    try {
      const report = await runReportBench({ n: 600, iterations: 2, warmup: 1, seed: 7, env, log: () => {}, cleanup });
      expect(report.perAgency).toEqual({ BPS: 200, FIA: 200, CUS: 200 });
      expect(report.links).toBe(6);
      expect(report.operations.map((o) => o.name)).toEqual([...REPORT_OPERATIONS]);
      for (const op of report.operations) expectLatency(op.latency, 2, op.name);
      expect(report.notes).toEqual(['The model server received 6 requests.']);
      const text = formatReportBench(report);
      for (const name of REPORT_OPERATIONS) expect(text).toContain(name);
      expect(text).toMatch(/^Machine: .+\nN: +600 records/);
    } finally {
      await cleanup.run();
    }
  });
});
