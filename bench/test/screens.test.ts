import { describe, expect, it } from 'vitest';
import {
  Cleanup,
  formatScreensReport,
  runScreensBench,
  SCREEN_OPERATIONS,
  type ScreensBenchOptions,
  STORE_SEEDING_ABOVE,
  seedViaFor,
} from '../src/screens-bench.ts';
import { expectLatency } from './figures.ts';

/** Runs the benchmark on embedded servers of its own (whatever the environment says). */
async function run(options: Omit<ScreensBenchOptions, 'env' | 'log' | 'cleanup'>) {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL']) delete env[name];
  const cleanup = new Cleanup();
  try {
    return await runScreensBench({ ...options, env, log: () => {}, cleanup });
  } finally {
    await cleanup.run();
  }
}

/**
 * The screens benchmark on a small data set: the whole system from its bundles on embedded servers
 * of its own, and Chromium (as `npm run bench:screens` runs it), with the records seeded either
 * way. Figures are checked for being figures, never for their size; the notes (empty) say the
 * Dashboard, the NAMLC check and the lists' totals agreed with what was seeded.
 */
describe('bench:screens', () => {
  it('seeds through the gateway up to the threshold and into the stores above it, unless told', () => {
    expect(seedViaFor(3000)).toBe('gateway');
    expect(seedViaFor(STORE_SEEDING_ABOVE)).toBe('gateway');
    expect(seedViaFor(STORE_SEEDING_ABOVE + 1)).toBe('store');
    expect(seedViaFor(100_000, 'gateway')).toBe('gateway');
    expect(seedViaFor(300, 'store')).toBe('store');
  });

  // A whole system and Chromium each: 85 s alone, past 240 s beside the whole suite on a busy 2-core
  // machine (2026-11-27). The timeout only guards against a hang.
  it('seeds records through the gateway, measures every screen operation in Chromium and reports them', {
    timeout: 480_000,
  }, async () => {
    const report = await run({ n: 360, iterations: 2, warmup: 0, seed: 3 });
    expect(report.seedVia).toBe('gateway');
    expect(report.perAgency).toEqual({ BPS: 120, FIA: 120, CUS: 120 });
    expect(report.deletedPerAgency).toEqual({ BPS: 12, FIA: 0, CUS: 0 });
    expect(report.deleted).toBe(12);
    expect(report.store).toMatch(/^FerretDB \S+ \(embedded, SQLite backend\)$/);
    expect(report.operations.map((o) => o.name)).toEqual([...SCREEN_OPERATIONS]);
    for (const op of report.operations) expectLatency(op.latency, 2, op.name);
    expect(report.notes).toEqual([]);
    const text = formatScreensReport(report);
    for (const name of SCREEN_OPERATIONS) expect(text).toContain(name);
    expect(text).toMatch(/^Machine: .+\nN: +360 records \(BPS 120 \(12 deleted\), FIA 120 \(0 deleted\), CUS 120/);
    expect(text).toContain('--seed-via gateway: each record POSTed, 12 police records DELETEd, through the gateway');
    expect(text).toMatch(/\nBrowser: chromium[-a-z]* \d+\.\d+\.\d+\.\d+ \(playwright-core\), 1280×800;/);
  });

  it('seeds records into the stores before the services start, and the screens read them the same behind uploads', {
    timeout: 480_000,
  }, async () => {
    // One run per operation: what this test checks is that the screens read store-seeded records
    // as they read the gateway-seeded ones (the notes), not the figures' spread; customs uploads
    // files of 50 rows one after another meanwhile (--upload 50).
    const report = await run({
      n: 360,
      iterations: 1,
      warmup: 0,
      seed: 3,
      seedVia: 'store',
      deletedPercent: 10,
      upload: 50,
    });
    expect(report.seedVia).toBe('store');
    expect(report.perAgency).toEqual({ BPS: 120, FIA: 120, CUS: 120 });
    const deleted = report.deletedPerAgency as Record<string, number>;
    expect(Object.keys(deleted).sort()).toEqual(['BPS', 'CUS', 'FIA']);
    for (const count of Object.values(deleted)) expect(count).toBeGreaterThan(0); // about 12 of 120 each
    expect(report.deleted).toBe(deleted.BPS);
    expect(report.operations.map((o) => o.name)).toEqual([...SCREEN_OPERATIONS]);
    for (const op of report.operations) expectLatency(op.latency, 1, op.name);
    expect(report.notes).toEqual([]);
    const text = formatScreensReport(report);
    expect(text).toContain(
      '--seed-via store: into the records collection, the match index and the stats read model before the services started;',
    );
    // Every file uploaded was stored whole, and at least one ended while the screens were timed (else a note).
    const b = report.background;
    expect(b).toBeDefined();
    if (!b) return;
    expect(b.rows).toBe(50);
    expect(b.completedWhileTimed).toBeGreaterThanOrEqual(1);
    expect(b.files).toBeGreaterThan(b.completedWhileTimed);
    expect(b.jobSeconds).toHaveLength(b.files);
    expect(b.stored).toBe(50 * b.files);
    expect(text).toMatch(
      new RegExp(
        `\\nUpload:  customs uploaded files of 50 rows one after another behind every operation: ${b.completedWhileTimed} ended while timing, ${b.files} in all \\(${b.stored.toLocaleString('en-US')} records stored\\)`,
      ),
    );
  });
});
