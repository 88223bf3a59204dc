import { testNamespace } from '@nrad/infra/harness';
import { connectMongo, Scope } from '@nrad/service-kit';
import { planOf } from '@nrad/service-kit/query-plans';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore, auditQueries } from '../src/data/store.ts';
import { auditEvent } from './harness.ts';

/**
 * The audit store's reads go through indexes on the embedded store (our FerretDB build) and on
 * MongoDB when MONGO_URL points at one: an entry by seq (each append checks the entry it follows),
 * and the filters of `GET /api/audit`. (Verification and retention walk the chain whole, on purpose.)
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('audit') });
afterAll(() => db.close());
const store = new AuditStore(db);

beforeAll(async () => {
  await store.init();
  for (let k = 0; k < 30; k++) {
    await store.append(
      auditEvent({
        recordIds: [`rec-${k % 5}`, `rec-${k % 7}`],
        userId: k % 2 ? 'user-a' : null,
        at: new Date(Date.UTC(2026, 0, 1, k)).toISOString(),
      }),
    );
  }
});

const page = (filter: Parameters<typeof auditQueries.page>[1]) =>
  planOf(store.entries, auditQueries.page(Scope.system('query plans test'), filter, 20, 0));

describe('audit queries', () => {
  it('an entry by seq', async () => {
    const plan = await planOf(store.entries, { filter: { _id: 7 }, projection: { hash: 1 } });
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.exact, plan.plan).toBe(true);
  });

  it('a record’s timeline', async () => {
    const plan = await page({ recordId: 'rec-3' });
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.filterPushed, plan.plan).toBe(true);
  });

  it('a user’s actions', async () => {
    const plan = await page({ userId: 'user-a' });
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.exact, plan.plan).toBe(true);
  });

  it('a time range', async () => {
    const plan = await page({ from: new Date(Date.UTC(2026, 0, 1, 3)), to: new Date(Date.UTC(2026, 0, 1, 9)) });
    expect(plan.indexed, plan.plan).toBe(true);
    if (plan.store === 'ferretdb') expect(plan.exact, plan.plan).toBe(true);
  });
});
