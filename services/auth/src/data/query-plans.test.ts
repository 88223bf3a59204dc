import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { countPlanOf, planOf, type QueryPlan } from '@nrad/service-kit/query-plans';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContactRequestRepository, contactRequestQueries } from './contact-requests.ts';
import { UserRepository, userQueries } from './users.ts';

/**
 * Every read of the auth service's collections uses an index: on the embedded store (our FerretDB
 * build, the filter pushed down as SQL) and on MongoDB when MONGO_URL points at one.
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('auth') });
afterAll(() => db.close());
const users = new UserRepository(db);
const requests = new ContactRequestRepository(db);

beforeAll(async () => {
  await Promise.all([users.init(), requests.init()]);
  for (let i = 0; i < 30; i++) {
    const user = await users.create({
      name: `User ${i}`,
      email: `user${i}@bps.bm`,
      passwordHash: 'not a hash',
      role: 'Analyst',
      organization: 'BPS',
    });
    await requests.create({
      userId: user.id,
      userEmail: user.email,
      userName: user.name,
      userOrganization: 'BPS',
      subject: 'Hello',
      message: 'A message',
    });
  }
});

function expectIndexed(plan: QueryPlan, what: string) {
  expect(plan.indexed, `${what}:\n${plan.plan}`).toBe(true);
  if (plan.store === 'ferretdb') expect(plan.exact, `${what}: exact`).toBe(true);
}

describe('auth queries', () => {
  it('users by email (sign-in, the taken check) and by id (the session, a rename)', async () => {
    const model = users.model;
    expectIndexed(await planOf(model, userQueries.byEmail('User3@BPS.bm')), 'by email');
    const taken = await countPlanOf(model, userQueries.byEmail('user3@bps.bm').filter);
    expectIndexed(taken, 'email taken (count)');
    if (taken.store === 'ferretdb') expect(taken.counted).toBe(true);
    expectIndexed(await planOf(model, userQueries.byId(new Types.ObjectId().toHexString())), 'by id');
  });

  it("a user's contact requests, newest first", async () => {
    const plan = await planOf(requests.model, contactRequestQueries.forUser(new Types.ObjectId().toHexString()));
    expectIndexed(plan, 'contact requests of a user');
    if (plan.store === 'ferretdb') expect(plan.sortPushed).toBe(true);
  });

  it("ADMIN's inbox: each status newest first", async () => {
    for (const status of ['open', 'resolved'] as const) {
      const plan = await planOf(requests.model, contactRequestQueries.inbox(status));
      expectIndexed(plan, `inbox ${status}`);
      if (plan.store === 'ferretdb') expect(plan.sortPushed, `inbox ${status}: sort`).toBe(true);
      const count = await countPlanOf(requests.model, contactRequestQueries.inbox(status).filter);
      expectIndexed(count, `inbox ${status} (count)`);
    }
  });
});
