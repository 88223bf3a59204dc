import { testNamespace } from '@nrad/infra/harness';
import { connectMongo, Scope } from '@nrad/service-kit';
import { countPlanOf, planOf } from '@nrad/service-kit/query-plans';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportStore, reportQueries } from '../src/data/reports.ts';

/**
 * The report store reads an organization's reports newest first (a page and its total) and one
 * report by id, each through an index, on the embedded store (our FerretDB build) and on MongoDB
 * when MONGO_URL points at one.
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('report') });
afterAll(() => db.close());
const store = new ReportStore(db);

beforeAll(async () => {
  await store.init();
  await store.reports.collection.insertMany(
    Array.from({ length: 60 }, (_, i) => ({
      _id: new Types.ObjectId(),
      organization: ['BPS', 'FIA', 'CUS'][i % 3],
      createdAt: new Date(Date.now() - i * 60_000),
    })),
  );
});

describe('report queries', () => {
  it('an organization’s reports newest first, and their total', async () => {
    const q = reportQueries.list(Scope.agency('FIA'));
    const page = await planOf(store.reports, { filter: q.filter, sort: q.sort, limit: 20 });
    expect(page.indexed, page.plan).toBe(true);
    if (page.store === 'ferretdb') expect(page.filterPushed && page.sortPushed, page.plan).toBe(true);
    const count = await countPlanOf(store.reports, q.filter);
    expect(count.indexed, count.plan).toBe(true);
  });

  it('a report by id', async () => {
    const plan = await planOf(store.reports, reportQueries.byId(new Types.ObjectId()));
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.exact).toBe(true);
  });
});
