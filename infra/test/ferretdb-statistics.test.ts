import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mongo } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ManagedProcess, startFerretdb } from '../src/index.ts';

/**
 * Our FerretDB build gathers SQLite's statistics in the background as a collection grows
 * (ANALYZE, ADR 0002), and every connection of its pool must plan with them — not only the one
 * that ran ANALYZE: the others read statistics with the schema, and kept an empty table's until
 * the schema next changed (the records service's plan test waited 40 s for a plan on a busy
 * machine). A server of its own, so that its pool is this test's.
 */
describe('statistics gathered as a collection grows reach every connection', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nrad-stats-'));
  let server: ManagedProcess;
  let client: mongo.MongoClient;
  let things: mongo.Collection;

  beforeAll(async () => {
    const started = await startFerretdb({ sqliteDir: dir });
    server = started.process;
    client = new mongo.MongoClient(started.url, { maxPoolSize: 40 });
    things = client.db('stats').collection('things');
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  });

  /** How 30 queries at once (on as many of the server's connections) are planned. */
  const plans = async () => {
    const explain = () =>
      client.db('stats').command({
        explain: {
          find: 'things',
          filter: { $and: [{ org: 'BPS', deleted: false }, { dob: new Date(Date.UTC(1950, 10, 11)) }] },
          sort: { createdAt: -1, _id: -1 },
          limit: 101,
        },
      });
    const answers = await Promise.all(Array.from({ length: 30 }, explain));
    return answers.map((a) => JSON.stringify(a.queryPlanner.Plan));
  };

  it('plans every query on the selective index once the rows are there', async () => {
    // The rows come right after the indexes (each created index starts an ANALYZE of the then
    // empty table: the rows may come while it runs, and must be counted towards the next), and the
    // pool's connections have read the schema while the table was empty.
    await things.createIndex({ org: 1, deleted: 1, createdAt: -1, _id: -1 });
    await things.createIndex({ dob: 1 });
    await plans();
    await things.insertMany(
      Array.from({ length: 900 }, (_, i) => ({
        org: ['BPS', 'FIA', 'CUS'][i % 3],
        deleted: false,
        dob: new Date(Date.UTC(1940 + (i % 60), i % 12, 1 + (i % 28))),
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
      })),
    );
    // The statistics are gathered in the background: wait until one query sees them.
    const deadline = Date.now() + 60_000;
    let seen = await plans();
    while (!seen.some((p) => p.includes('dob_1')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      seen = await plans();
    }
    expect(seen.some((p) => p.includes('dob_1'))).toBe(true);
    // Then every connection plans with them.
    const all = await plans();
    expect(all.filter((p) => !p.includes('dob_1'))).toEqual([]);
  }, 120_000);
});
