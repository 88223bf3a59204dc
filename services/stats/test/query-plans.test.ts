import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { planOf } from '@nrad/service-kit/query-plans';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatsStore, statsQueries } from '../src/data/store.ts';

/**
 * The stats store writes one record's state by `_id`, through the `_id` index, on the embedded
 * store (our FerretDB build) and on MongoDB when MONGO_URL points at one. (Loading the model at
 * start reads the collection whole, on purpose.)
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('stats') });
afterAll(() => db.close());
const store = new StatsStore(db);

beforeAll(async () => {
  await store.init();
  await store.states.collection.insertMany(
    Array.from({ length: 20 }, () => ({ _id: new Types.ObjectId(), organization: 'BPS' })),
  );
});

describe('stats queries', () => {
  it("a record's state by id", async () => {
    const plan = await planOf(store.states, statsQueries.state(new Types.ObjectId()));
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.exact).toBe(true);
  });
});
