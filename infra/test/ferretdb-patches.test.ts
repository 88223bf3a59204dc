import mongoose, { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNamespace } from '../src/harness/index.ts';

/**
 * infra/ferretdb/patches.json: the store of the test run finds, updates and deletes a document by
 * `_id` through the `_id` index (FerretDB 1.24.2 unpatched scans its SQLite table for each).
 */
describe('reads and writes by _id use the _id index', () => {
  const ns = testNamespace();
  let conn: mongoose.Connection;
  let db: NonNullable<mongoose.Connection['db']>;
  const ids = Array.from({ length: 50 }, () => new Types.ObjectId());

  beforeAll(async () => {
    conn = await mongoose.createConnection(ns.mongoUrl, { serverSelectionTimeoutMS: 10_000 }).asPromise();
    if (!conn.db) throw new Error('not connected');
    db = conn.useDb(ns.db('patches')).db as typeof db;
    await db.collection('docs').insertMany(ids.map((_id, i) => ({ _id, i })));
  });
  afterAll(() => conn?.close());

  it('plans a find by _id as an index search, not a scan', async () => {
    const target = ids[17] as Types.ObjectId;
    const explained = await db.command({ explain: { find: 'docs', filter: { _id: target } } });
    const plan = JSON.stringify(explained.queryPlanner);
    if (explained.ferretdbVersion !== undefined || explained.serverInfo?.ferretdbVersion !== undefined) {
      // FerretDB's SQLite backend answers with SQLite's EXPLAIN QUERY PLAN.
      expect(explained.filterPushdown).toBe(true);
      expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_/);
      expect(plan).not.toMatch(/detail=SCAN/);
    } else {
      // MongoDB: the _id fast path or an index scan of _id.
      expect(plan).toMatch(/IDHACK|EXPRESS_IXSCAN|IXSCAN/);
    }
  });

  it('finds, updates and deletes the right document by _id', async () => {
    const docs = db.collection<{ _id: Types.ObjectId; i: number; seen?: boolean }>('docs');
    expect(await docs.findOne({ _id: ids[3] as Types.ObjectId })).toEqual({ _id: ids[3], i: 3 });
    const updated = await docs.updateOne({ _id: ids[4] as Types.ObjectId }, { $set: { seen: true } });
    expect(updated.matchedCount).toBe(1);
    expect(await docs.replaceOne({ _id: ids[5] as Types.ObjectId }, { i: 500 })).toMatchObject({ matchedCount: 1 });
    expect(await docs.deleteOne({ _id: ids[6] as Types.ObjectId })).toMatchObject({ deletedCount: 1 });
    expect(await docs.countDocuments({ seen: true })).toBe(1);
    expect(await docs.findOne({ _id: ids[4] as Types.ObjectId })).toEqual({ _id: ids[4], i: 4, seen: true });
    expect(await docs.findOne({ _id: ids[5] as Types.ObjectId })).toEqual({ _id: ids[5], i: 500 });
    expect(await docs.findOne({ _id: ids[6] as Types.ObjectId })).toBeNull();
    expect(await docs.findOne({ _id: new Types.ObjectId() })).toBeNull();
    expect(await docs.countDocuments()).toBe(49);
  });
});

/**
 * infra/ferretdb/patches.json: an array field's single-field index is kept as an elements table
 * (its whole-value SQLite index dropped, rows found again by their values when a document
 * changes or goes), and the index is still there for every command that names it.
 */
describe('an array field index kept as its elements', () => {
  const ns = testNamespace();
  let conn: mongoose.Connection;
  let db: NonNullable<mongoose.Connection['db']>;
  type Doc = { _id: number; tags: string[] | string | null };
  const docs = () => db.collection<Doc>('tagged');
  const idsWith = async (tag: string) =>
    (await docs().find({ tags: tag }).sort({ _id: 1 }).toArray()).map((d) => d._id);

  beforeAll(async () => {
    conn = await mongoose.createConnection(ns.mongoUrl, { serverSelectionTimeoutMS: 10_000 }).asPromise();
    if (!conn.db) throw new Error('not connected');
    db = conn.useDb(ns.db('elements')).db as typeof db;
    await docs().createIndex({ tags: 1 });
    await docs().insertMany([
      { _id: 1, tags: ['red', 'blue'] },
      { _id: 2, tags: ['blue', 'blue', 'green'] },
      { _id: 3, tags: 'red' },
      { _id: 4, tags: null },
    ]);
  });
  afterAll(() => conn?.close());

  it('finds by an element through the elements table', async () => {
    const explained = await db.command({ explain: { find: 'tagged', filter: { tags: 'blue' } } });
    if (explained.ferretdbVersion !== undefined || explained.serverInfo?.ferretdbVersion !== undefined) {
      expect(JSON.stringify(explained.queryPlanner)).toContain('__nrad_elements');
    }
    expect(await idsWith('blue')).toEqual([1, 2]);
    expect(await idsWith('red')).toEqual([1, 3]);
  });

  it('forgets the old elements of a changed document and of a deleted one', async () => {
    await docs().updateOne({ _id: 1 }, { $set: { tags: ['green'] } });
    await db.collection<{ _id: number; tags: string[] }>('tagged').updateOne({ _id: 2 }, { $pull: { tags: 'blue' } });
    await docs().replaceOne({ _id: 3 }, { tags: ['red', 'red', 'blue'] });
    await docs().updateOne({ _id: 4 }, { $set: { tags: 'blue' } });
    expect(await idsWith('blue')).toEqual([3, 4]);
    expect(await idsWith('red')).toEqual([3]);
    expect(await idsWith('green')).toEqual([1, 2]);

    await docs().deleteOne({ _id: 3 });
    await docs().deleteMany({ tags: 'green' });
    expect(await idsWith('blue')).toEqual([4]);
    expect(await idsWith('red')).toEqual([]);
    expect(await idsWith('green')).toEqual([]);
    // a new document may take a deleted one's rowid: it has only its own elements
    await docs().insertOne({ _id: 5, tags: ['green'] });
    expect(await idsWith('red')).toEqual([]);
    expect(await idsWith('green')).toEqual([5]);
  });

  it('still lists, sizes and drops the index', async () => {
    expect((await docs().indexes()).map((i) => i.name)).toEqual(['_id_', 'tags_1']);
    const stats = await db.command({ collStats: 'tagged' });
    expect(Object.keys(stats.indexSizes).sort()).toEqual(['_id_', 'tags_1']);
    await docs().dropIndex('tags_1');
    expect((await docs().indexes()).map((i) => i.name)).toEqual(['_id_']);
    expect(await idsWith('green')).toEqual([5]);
  });
});
