import { describe, expect, it } from 'vitest';
import { Cleanup } from '../src/harness.ts';
import { formatIslandReport, runIslandBench } from '../src/island-bench.ts';

/**
 * bench:linking's small-island mode (issue 36) on a tiny data set: seeded, uploaded by the three
 * agencies at once, consumed, restarted. Figures are checked for being figures, never for their size.
 */
describe('bench:linking --island', () => {
  it('uploads the island’s people, follows auto-linking until it has caught up, and reports it', {
    timeout: 180_000,
  }, async () => {
    const env: Record<string, string | undefined> = { ...process.env };
    for (const name of ['MONGO_URL', 'NATS_URL', 'REDIS_URL', 'FERRETDB_POSTGRESQL_URL', 'LOG_LEVEL']) delete env[name];
    const cleanup = new Cleanup();
    try {
      const r = await runIslandBench({ n: 900, upload: 600, seed: 3, waitMs: 60_000, env, log: () => {}, cleanup });
      expect(r.seeded).toBe(300);
      expect(r.uploaded.rows).toBe(200);
      expect(r.uploaded.created).toBe(600);
      expect(r.uploaded.near).toBeGreaterThan(0);
      // Every uploaded record's event consumed, in a time and at a rate that are figures.
      expect(r.events).toBeGreaterThanOrEqual(600);
      expect(r.lagMs).not.toBeNull();
      expect(r.lagMs).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(r.eventsPerSecond) && r.eventsPerSecond > 0).toBe(true);
      expect(r.maxBehind).toBeGreaterThan(0);
      expect(r.redelivered).toBe(0);
      // The rows naming another agency's suspect were linked (or proposed).
      expect(r.made.links + r.made.possibleMatches).toBeGreaterThan(0);
      expect(r.memory?.collected).toBe(true);
      expect(r.memory?.heapBytesPerRecord).toBeGreaterThan(0);
      expect(r.notes).toEqual([]);
      const text = formatIslandReport(r);
      expect(text).toMatch(/^Machine: .+\nN: +900 records of a small island's people: 300 seeded/);
      expect(text).toContain('lag after the jobs:');
      expect(text).toContain('POST /api/records/check-namlc-matches');
      expect(text).toMatch(/\nMemory: +heap [\d.,]+ MiB once the index was loaded/);
    } finally {
      await cleanup.run();
    }
  });
});
