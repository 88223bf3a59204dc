import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { planOf, type QueryPlan } from '@nrad/service-kit/query-plans';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinkingStore, linkingQueries } from '../src/data/store.ts';

/**
 * The linking store's filtered reads and writes go by `_id`, through the `_id` index, on the
 * embedded store (our FerretDB build) and on MongoDB when MONGO_URL points at one. (Loading the
 * index and the links at start reads both collections whole, on purpose.)
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('linking') });
afterAll(() => db.close());
const store = new LinkingStore(db);

beforeAll(async () => {
  await store.init();
  const docs = Array.from({ length: 20 }, () => ({ _id: new Types.ObjectId(), organization: 'BPS', keys: ['k'] }));
  await store.index.collection.insertMany(docs);
  await store.links.collection.insertMany(
    docs.map((d, i) => ({ _id: new Types.ObjectId(), pairKey: `${d._id}:${i}`, published: true })),
  );
  await store.possibleMatches.collection.insertMany(
    docs.map((d, i) => ({ _id: new Types.ObjectId(), pairKey: `${d._id}:${i}`, decision: null })),
  );
});

function expectIndexed(plan: QueryPlan, what: string) {
  expect(plan.indexed, `${what}:\n${plan.plan}`).toBe(true);
  if (plan.store === 'ferretdb') expect(plan.exact, `${what}: exact`).toBe(true);
}

describe('linking queries', () => {
  it('an index entry and a link by id', async () => {
    expectIndexed(await planOf(store.index, linkingQueries.entry(new Types.ObjectId())), 'entry by id');
    expectIndexed(await planOf(store.links, linkingQueries.link(new Types.ObjectId())), 'link by id');
  });

  it('a possible match by id (its decision)', async () => {
    expectIndexed(await planOf(store.possibleMatches, linkingQueries.possibleMatch(new Types.ObjectId())), 'by id');
  });
});
