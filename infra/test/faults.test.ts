import { describe, expect, it } from 'vitest';
import { formatReport, KILL_ORDER, runFaultSuite } from '../src/faults/runner.ts';

/**
 * The fault suite (issue 21; `npm run test:faults` runs it at full size) at a size that fits the
 * time of `npm test`: the system as `npm start` runs it, from its bundles, on servers of its own;
 * a client creating 150 records and an upload of 3,000 rows while the records service, the ingest
 * worker, linking, stats, NATS, Redis and FerretDB are each killed with SIGKILL and started again.
 * Every check is a count compared with a direct count in the stores; the report is printed.
 */
describe('fault suite: kill -9 of each part under creates and an upload', () => {
  it('loses nothing, doubles nothing, and needs no manual step', { timeout: 12 * 60_000 }, async () => {
    const lines: string[] = [];
    const report = await runFaultSuite({
      creates: 150,
      uploadRows: 3000,
      log: (line) => lines.push(line),
      logLevel: 'warn',
      keepData: 'on-failure',
      settleTimeoutMs: 4 * 60_000,
      // The worker killed in the middle of its job: its lock lapses after 5 s instead of 30 s,
      // so that the job resumes within the test's time.
      serviceEnv: { ingest: { INGEST_LOCK_MS: '5000' } },
    });
    const text = formatReport(report);
    process.stdout.write(`${lines.join('\n')}\n\n${text}\n`);
    expect(report.kills.map((k) => k.part)).toEqual([...KILL_ORDER]);
    expect(
      report.checks.filter((c) => !c.ok).map((c) => `${c.check}: expected ${c.expected}, found ${c.found}`),
    ).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
