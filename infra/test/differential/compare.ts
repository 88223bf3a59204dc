import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mongo } from 'mongoose';
import { ensureFerretdbBinary, ensureUpstreamFerretdbBinary, startFerretdb } from '../../src/ferretdb.ts';
import type { ManagedProcess } from '../../src/process.ts';
import { cleanDocs, type Filter, filters, INVALID_FILTERS, mixedDocs, probes, Rng, SORTS } from './cases.ts';

const { EJSON } = mongo.BSON;

/** One FerretDB server of the comparison, restartable on its data directory. */
export class Server {
  client!: mongo.MongoClient;
  private proc?: ManagedProcess;

  constructor(
    readonly name: string,
    readonly binary: string,
    readonly dir: string,
  ) {}

  async start(): Promise<void> {
    const { url, process } = await startFerretdb({ binary: this.binary, sqliteDir: this.dir });
    this.proc = process;
    // BSON types as sent (Int32, Double, Long, BSONRegExp), so results compare type for type.
    this.client = await mongo.MongoClient.connect(url, {
      serverSelectionTimeoutMS: 10_000,
      promoteValues: false,
      promoteLongs: false,
      bsonRegExp: true,
    });
  }

  async stop(): Promise<void> {
    await this.client?.close();
    await this.proc?.stop(5000);
  }

  db(): mongo.Db {
    return this.client.db('diff');
  }
}

/** What one operation answered: its result as canonical Extended JSON, or its error. */
type Outcome = { ok: string } | { error: string };

async function outcome(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: EJSON.stringify(await run(), { relaxed: false }) };
  } catch (err) {
    const e = err as { code?: number; codeName?: string; errmsg?: string; message?: string };
    // Internal errors name source lines, which the patch moves: compare the rest.
    const message = (e.errmsg ?? e.message ?? String(err)).replace(/\.go:\d+ /g, '.go ');
    // A write that failed partly: how much went in, and which items were refused with what.
    const partly =
      err instanceof mongo.MongoBulkWriteError
        ? ` inserted ${err.insertedCount}, refused ${[err.writeErrors]
            .flat()
            .map((w) => `${w.index}:${w.code}`)
            .join(',')}`
        : '';
    return { error: `${e.code ?? ''} ${e.codeName ?? ''} ${message}${partly}` };
  }
}

/** An operation run on both servers, by name. */
export interface Operation {
  what: string;
  run(db: mongo.Db): Promise<unknown>;
}

/** The differences found, and how many operations were compared. */
export class Differences {
  readonly found: string[] = [];
  compared = 0;
  errorsAlike = 0;
  /** How our build planned the filters compared (from explain): proof the patch was exercised. */
  readonly plans = {
    filters: 0,
    pushed: 0,
    exact: 0,
    elements: 0,
    sorted: 0,
    limited: 0,
    counted: 0,
    rangeOrPrefix: 0,
    /** Elements chosen to start from, a column's index walked instead, elements read from each row. */
    driven: 0,
    walked: 0,
    onDocument: 0,
  };

  /** Tallies how our build plans a filter's find (sorted, limited) and count. */
  async tally(patched: Server, collection: string, filter: Filter): Promise<void> {
    const db = patched.db();
    const find = await db
      .command({ explain: { find: collection, filter, sort: { createdAt: -1, _id: -1 }, limit: 101 } })
      .catch(() => undefined);
    const count = await db
      .command({
        explain: {
          aggregate: collection,
          pipeline: [{ $match: filter }, { $group: { _id: 1, n: { $sum: 1 } } }],
          cursor: {},
        },
      })
      .catch(() => undefined);
    this.plans.filters++;
    if (!find) return;
    const sql = String(find.queryPlanner?.nradSQL ?? '');
    if (find.filterPushdown) this.plans.pushed++;
    if (find.filterPushdown && find.queryPlanner?.nradExact) this.plans.exact++;
    if (sql.includes('__nrad_elements')) this.plans.elements++;
    if (/ [<>]=? \?/.test(sql)) this.plans.rangeOrPrefix++;
    if (find.sortPushdown) this.plans.sorted++;
    if (find.limitPushdown) this.plans.limited++;
    if (count?.queryPlanner?.nradCount) this.plans.counted++;
    for (const plan of [find.queryPlanner, count?.queryPlanner]) {
      // nradDriver: the part of the filter whose elements the query starts from (-1: no choice
      // made, -2: a column's index walked instead).
      if ((plan?.nradDriver ?? -1) >= 0) this.plans.driven++;
      if (plan?.nradDriver === -2) this.plans.walked++;
      if (String(plan?.nradSQL ?? '').includes('EXISTS (SELECT 1 FROM json_each')) this.plans.onDocument++;
    }
  }

  async compare(a: Server, b: Server, op: Operation): Promise<void> {
    const [x, y] = await Promise.all([outcome(() => op.run(a.db())), outcome(() => op.run(b.db()))]);
    this.compared++;
    if ('error' in x && 'error' in y) this.errorsAlike++;
    const same = 'ok' in x && 'ok' in y ? x.ok === y.ok : 'error' in x && 'error' in y && x.error === y.error;
    if (!same) {
      const show = (o: Outcome) => ('ok' in o ? o.ok : `ERROR ${o.error}`).slice(0, 600);
      this.found.push(`${op.what}\n  ${a.name}: ${show(x)}\n  ${b.name}: ${show(y)}`);
    }
  }
}

const COLLECTIONS = ['clean', 'mixed'] as const;

/** The collection of `inserts`: a unique index and an array field (elements rows) of its own. */
const INSERTED = 'inserted';

/** The indexes the services create (FerretDB's SQLite backend builds them; our build reads them). */
async function createIndexes(db: mongo.Db): Promise<void> {
  for (const name of COLLECTIONS) {
    const c = db.collection(name);
    await c.createIndex({ org: 1, deleted: 1, createdAt: -1, _id: -1 });
    await c.createIndex({ deleted: 1, createdAt: -1, _id: -1 });
    await c.createIndex({ org: 1, deleted: 1, deletedAt: -1, _id: -1 });
    await c.createIndex({ key: 1 });
    await c.createIndex({ tokens: 1 });
    await c.createIndex({ amount: 1 });
    await c.createIndex({ crimeType: 1 });
  }
  await db.collection(INSERTED).createIndex({ serial: 1 }, { unique: true });
  await db.collection(INSERTED).createIndex({ tokens: 1 });
}

/** Projections: fields kept, fields left out, _id left out; some touch the filter's fields. */
const PROJECTIONS: Array<Record<string, 0 | 1>> = [
  { _id: 1, createdAt: 1 },
  { org: 1, key: 1 },
  { _id: 0, createdAt: 1, tokens: 1 },
  { tokens: 0, amount: 0 },
  { key: 0 },
  { _id: 0 },
  { absent: 1 },
  { reviewedAt: 1, ref: 1, when: 1 },
];

/** Every read of a filter: finds with sorts, limits and skips, counts three ways, aggregations. */
export function reads(rng: Rng, collection: string, filter: Filter): Operation[] {
  const f = JSON.stringify(EJSON.serialize(filter));
  const ops: Operation[] = [];
  const sort = rng.pick(SORTS);
  const limit = rng.pick([0, 1, 5, 101]);
  const skip = rng.pick([0, 0, 3]);
  ops.push({
    what: `${collection}.find(${f}).sort(${JSON.stringify(sort)}).skip(${skip}).limit(${limit})`,
    run: (db) => {
      let cursor = db.collection(collection).find(filter).skip(skip).limit(limit).batchSize(7);
      if (sort) cursor = cursor.sort(sort);
      return cursor.toArray();
    },
  });
  ops.push({
    what: `${collection}.find(${f}).sort({createdAt:-1,_id:-1}).limit(101)`,
    run: (db) => db.collection(collection).find(filter).sort({ createdAt: -1, _id: -1 }).limit(101).toArray(),
  });
  const projection = rng.pick(PROJECTIONS);
  ops.push({
    what: `${collection}.find(${f}, ${JSON.stringify(projection)}).sort({createdAt:-1,_id:-1}).limit(${limit})`,
    run: (db) =>
      db.collection(collection).find(filter, { projection }).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray(),
  });
  ops.push({
    what: `${collection}.find(${f}, ${JSON.stringify(projection)})`,
    run: (db) => db.collection(collection).find(filter, { projection }).toArray(),
  });
  ops.push({
    what: `${collection}.countDocuments(${f})`,
    run: (db) => db.collection(collection).countDocuments(filter),
  });
  ops.push({
    what: `${collection}.countDocuments(${f}, {skip: 2, limit: 9})`,
    run: (db) => db.collection(collection).countDocuments(filter, { skip: 2, limit: 9 }),
  });
  ops.push({
    what: `count {query: ${f}}`,
    run: (db) => db.command({ count: collection, query: filter }),
  });
  ops.push({
    what: `${collection}.aggregate([$match ${f}, $count])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([{ $match: filter }, { $count: 'n' }])
        .toArray(),
  });
  ops.push({
    what: `${collection}.aggregate([$match ${f}, $group {_id: null, n: $sum 2}])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([{ $match: filter }, { $group: { _id: null, n: { $sum: 2 } } }])
        .toArray(),
  });
  ops.push({
    // Counted (countDocuments' shape): several sums, their types, int32 and int64 overflowing,
    // doubles added one by one.
    what: `${collection}.aggregate([$match ${f}, $group {_id: 7, a: $sum int32 max, b: $sum 0.1, c: $sum int64 max}])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([
          { $match: filter },
          {
            $group: {
              _id: new mongo.Int32(7),
              a: { $sum: new mongo.Int32(2_147_483_647) },
              b: { $sum: new mongo.Double(0.1) },
              c: { $sum: mongo.Long.fromString('9223372036854775807') },
            },
          },
        ])
        .toArray(),
  });
  ops.push({
    what: `${collection}.aggregate([$match ${f}, $group {_id: 2.5, d: $sum 0.1, e: $sum int64 3}])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([
          { $match: filter },
          {
            $group: {
              _id: new mongo.Double(2.5),
              d: { $sum: new mongo.Double(0.1) },
              e: { $sum: mongo.Long.fromNumber(3) },
            },
          },
        ])
        .toArray(),
  });
  ops.push({
    what: `${collection}.aggregate([$match ${f}, $group {_id: true, f: $sum int64 max}])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([
          { $match: filter },
          { $group: { _id: true, f: { $sum: mongo.Long.fromString('9223372036854775807') } } },
        ])
        .toArray(),
  });
  ops.push({
    what: `${collection}.aggregate([$sort, $match ${f}, $limit])`,
    run: (db) =>
      db
        .collection(collection)
        .aggregate([{ $sort: { amount: 1 } }, { $match: filter }, { $limit: 5 }])
        .toArray(),
  });
  ops.push({
    what: `${collection}.distinct(org, ${f})`,
    run: (db) => db.collection(collection).distinct('org', filter),
  });
  return ops;
}

/** The reads of a probe: those that trust an exact SQL condition (counts, limits). */
function probeReads(collection: string, filter: Filter): Operation[] {
  const f = JSON.stringify(EJSON.serialize(filter));
  return [
    { what: `${collection}.countDocuments(${f})`, run: (db) => db.collection(collection).countDocuments(filter) },
    {
      what: `${collection}.find(${f}).limit(3)`,
      run: (db) => db.collection(collection).find(filter).limit(3).toArray(),
    },
    {
      what: `${collection}.find(${f}).sort({createdAt:-1,_id:-1}).limit(3)`,
      run: (db) => db.collection(collection).find(filter).sort({ createdAt: -1, _id: -1 }).limit(3).toArray(),
    },
  ];
}

/** A walk through every page of a filter, newest first, with the services' keyset condition. */
export function keysetWalk(collection: string, filter: Filter, sortField: 'createdAt' | 'deletedAt'): Operation {
  return {
    what: `${collection} keyset walk by ${sortField} of ${JSON.stringify(EJSON.serialize(filter))}`,
    run: async (db) => {
      const pages: unknown[] = [];
      let after: { time: unknown; id: unknown } | undefined;
      for (let page = 0; page < 200; page++) {
        const paged = after
          ? {
              $and: [
                filter,
                {
                  $or: [{ [sortField]: { $lt: after.time } }, { [sortField]: after.time, _id: { $lt: after.id } }],
                },
              ],
            }
          : filter;
        const docs = await db
          .collection(collection)
          .find(paged)
          .sort({ [sortField]: -1, _id: -1 })
          .limit(8)
          .toArray();
        pages.push(docs.map((d) => d._id));
        if (docs.length < 8) break;
        const last = docs.at(-1) as Record<string, unknown>;
        after = { time: last[sortField], id: last._id };
      }
      return pages;
    },
  };
}

/** Writes through filters: each server's collection is compared whole afterwards. */
export function writes(rng: Rng, collection: string, filter: Filter, i: number): Operation[] {
  const f = JSON.stringify(EJSON.serialize(filter));
  return [
    {
      what: `${collection}.updateMany(${f}, $set touched ${i})`,
      run: (db) => db.collection(collection).updateMany(filter, { $set: { touched: i } }),
    },
    {
      what: `${collection}.updateOne(${f}, $inc version)`,
      run: (db) => db.collection(collection).updateOne(filter, { $inc: { version: 1 } }),
    },
    {
      what: `${collection}.findOneAndUpdate(${f}, sort createdAt)`,
      run: (db) =>
        db
          .collection(collection)
          .findOneAndUpdate(filter, { $set: { picked: i } }, { sort: { createdAt: -1, _id: -1 } }),
    },
    ...(rng.chance(0.3)
      ? [{ what: `${collection}.deleteOne(${f})`, run: (db: mongo.Db) => db.collection(collection).deleteOne(filter) }]
      : []),
  ];
}

/**
 * Inserts of round `round` that succeed, and that fail midway on a duplicate `_id` or a duplicate
 * key of a unique index, ordered and not, one statement's worth and more: the same answers and
 * (in the dumps) the same documents kept. Each document has an array with a repeated value.
 */
export function inserts(round: number): Operation[] {
  const doc = (k: number, serial = round * 10_000 + k) => ({
    _id: new mongo.ObjectId((round * 100_000 + k).toString(16).padStart(24, 'f')),
    serial,
    tokens: ['a', `t${k % 7}`, 'a'],
    createdAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000),
  });
  const c = (db: mongo.Db) => db.collection(INSERTED);
  const op = (what: string, run: (db: mongo.Db) => Promise<unknown>): Operation => ({
    what: `${INSERTED} round ${round}: ${what}`,
    run,
  });
  const many = Array.from({ length: 4400 }, (_, k) => doc(100 + k));
  return [
    op('three new documents', (db) => c(db).insertMany([doc(0), doc(1), doc(2)])),
    op('ordered, a duplicate _id second', (db) => c(db).insertMany([doc(3), doc(0), doc(4)])),
    op('unordered, a duplicate unique key second', (db) =>
      c(db).insertMany([doc(5), { ...doc(6), serial: round * 10_000 + 1 }, doc(7)], { ordered: false }),
    ),
    op('one duplicate _id', (db) => c(db).insertOne(doc(1))),
    op('4,400 new documents (two statements)', (db) => c(db).insertMany(many)),
    op('ordered, 4,100 with a duplicate at 4,050', (db) =>
      c(db).insertMany([...Array.from({ length: 4050 }, (_, k) => doc(5000 + k)), doc(100), doc(9500)]),
    ),
  ];
}

/** The whole contents of each collection, in natural order. */
export function dumps(): Operation[] {
  return [...COLLECTIONS, INSERTED].map((c) => ({
    what: `dump ${c}`,
    run: (db: mongo.Db) => db.collection(c).find({}).toArray(),
  }));
}

export interface Comparison {
  patched: Server;
  upstream: Server;
  /** Our build started on a copy of the upstream's data directory (kinds learned from the table). */
  learned?: Server;
  differences: Differences;
  rng: Rng;
  cleanup(): Promise<void>;
}

/** An insertMany that FerretDB partly refused (the refusals are the same on both servers). */
function refused(err: unknown): void {
  if (!(err instanceof mongo.MongoBulkWriteError)) throw err;
}

/** Starts our build and the unpatched module on fresh directories, with the same documents. */
export async function startComparison(seed: number, docs: number): Promise<Comparison> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'nrad-diff-'));
  const patched = new Server('patched', ensureFerretdbBinary(), path.join(root, 'patched'));
  const upstream = new Server('upstream', ensureUpstreamFerretdbBinary(), path.join(root, 'upstream'));
  await Promise.all([patched.start(), upstream.start()]);
  const rng = new Rng(seed);
  const clean = cleanDocs(rng, docs);
  const mixed = mixedDocs(rng, docs);
  for (const s of [patched, upstream]) {
    await createIndexes(s.db());
    // two batches each, so kinds are learned from more than one write
    await s
      .db()
      .collection('clean')
      .insertMany(clean.slice(0, docs / 2));
    await s
      .db()
      .collection('clean')
      .insertMany(clean.slice(docs / 2));
    // FerretDB refuses some documents (nested arrays): both refuse the same, the rest go in.
    await s
      .db()
      .collection('mixed')
      .insertMany(mixed.slice(0, docs / 2), { ordered: false })
      .catch(refused);
    await s
      .db()
      .collection('mixed')
      .insertMany(mixed.slice(docs / 2), { ordered: false })
      .catch(refused);
  }
  const cmp: Comparison = {
    patched,
    upstream,
    differences: new Differences(),
    rng,
    async cleanup() {
      await Promise.all([patched.stop(), upstream.stop(), cmp.learned?.stop()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return cmp;
}

/** Runs the reads of `n` generated filters (and the invalid ones) on both servers. */
export async function compareReads(cmp: Comparison, a: Server, b: Server, n: number, probeShare = 1): Promise<void> {
  for (const collection of COLLECTIONS) {
    const sample = await a.db().collection(collection).find({}).toArray();
    const list = [...filters(cmp.rng, sample, n), ...INVALID_FILTERS];
    for (const filter of list) {
      for (const op of reads(cmp.rng, collection, filter)) await cmp.differences.compare(a, b, op);
      await cmp.differences.tally(a, collection, filter);
    }
    for (const filter of probes(cmp.rng, probeShare)) {
      for (const op of probeReads(collection, filter)) await cmp.differences.compare(a, b, op);
    }
    for (const filter of list.slice(0, Math.ceil(n / 4))) {
      await cmp.differences.compare(
        a,
        b,
        keysetWalk(collection, filter, cmp.rng.chance(0.7) ? 'createdAt' : 'deletedAt'),
      );
    }
  }
}

/** Rounds of `inserts` run so far (each round's documents are new). */
let insertRound = 1;

/** Runs writes through `n` generated filters and `inserts` on both servers, then compares the collections. */
export async function compareWrites(cmp: Comparison, n: number): Promise<void> {
  for (const collection of COLLECTIONS) {
    const sample = await cmp.patched.db().collection(collection).find({}).toArray();
    const list = filters(cmp.rng, sample, n);
    for (const [i, filter] of list.entries()) {
      for (const op of writes(cmp.rng, collection, filter, i))
        await cmp.differences.compare(cmp.patched, cmp.upstream, op);
    }
  }
  for (const op of inserts(insertRound++)) await cmp.differences.compare(cmp.patched, cmp.upstream, op);
  for (const op of dumps()) await cmp.differences.compare(cmp.patched, cmp.upstream, op);
}

/** Restarts both servers on their directories. */
export async function restart(cmp: Comparison): Promise<void> {
  await Promise.all([cmp.patched.stop(), cmp.upstream.stop()]);
  await Promise.all([cmp.patched.start(), cmp.upstream.start()]);
}

/**
 * Writes that widen the kinds after a restart: the clean collection gets arrays in scalar fields,
 * strings in ObjectId and date fields, dates outside 13 digits, -0 and large numbers.
 */
export async function widenKinds(cmp: Comparison): Promise<void> {
  const rng = new Rng(7);
  const extra = mixedDocs(rng, 40, 10_000);
  for (const s of [cmp.patched, cmp.upstream]) {
    await s.db().collection('clean').insertMany(extra, { ordered: false }).catch(refused);
    await s
      .db()
      .collection('clean')
      .updateMany({ amount: 250 }, { $set: { org: ['BPS', 'FIA'], createdAt: new Date(Date.UTC(1990, 0, 1)) } });
  }
}

/** Starts our build on a copy of the upstream server's directory (taken while it is stopped). */
export async function startLearned(cmp: Comparison): Promise<Server> {
  await cmp.upstream.stop();
  const dir = `${cmp.upstream.dir}-copy`;
  cpSync(cmp.upstream.dir, dir, { recursive: true });
  await cmp.upstream.start();
  const learned = new Server('patched on upstream data', ensureFerretdbBinary(), dir);
  await learned.start();
  cmp.learned = learned;
  return learned;
}
