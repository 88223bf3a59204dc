import { RecordInputSchema, RecordSearchSchema, type UserIdentity } from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { connectMongo, type Scope, scopeOf } from '@nrad/service-kit';
import { countPlanOf, type PlannedQuery, planOf, type QueryPlan } from '@nrad/service-kit/query-plans';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameTermQueries } from '../src/data/name-terms.ts';
import {
  newRecordDoc,
  type RecordCriteria,
  type RecordDoc,
  RecordRepository,
  recordQueries,
} from '../src/data/records.ts';
import { nearTerms, searchCriteria } from '../src/use-cases/records.ts';
import { recordBody, userOf } from './harness.ts';

/**
 * Every query of the records repository is read through an index, on the embedded store (our
 * FerretDB build: the filter pushed down as SQL, the SQL using the indexes; counts, sorts and
 * limits in SQL where the filter is exact) and on MongoDB (IXSCAN, never COLLSCAN) when MONGO_URL
 * points at one. On an unpatched FerretDB every one of these is a full scan.
 */
const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('records') });
const repo = new RecordRepository(db);
afterAll(() => db.close());

const bps = userOf('BPS', 'Planner');
const admin = userOf('ADMIN', 'Admin');
const model = repo.model;

beforeAll(async () => {
  await repo.init();
  // A few hundred records of every kind of value the service stores, some deleted (not enough for
  // the store to gather statistics: plans are SQLite's own choice from the indexes alone).
  const docs: RecordDoc[] = [];
  for (let i = 0; i < 240; i++) {
    const organization = (['BPS', 'FIA', 'CUS', 'ADMIN'] as const)[i % 4] ?? 'BPS';
    const input = RecordInputSchema.parse(
      recordBody({
        incidentNumber: `${organization}-2026-${i}`,
        suspectName: i % 7 === 0 ? 'Marie-Hélène Dubois' : `Person ${i} Smith`,
        crimeType: i % 3 === 0 ? 'Fraud' : undefined,
        cyberAssisted: i % 2 === 0,
      }),
    );
    const doc = newRecordDoc(input, { organization, createdById: new Types.ObjectId().toHexString() });
    if (i % 10 === 0) Object.assign(doc, { deleted: true, deletedAt: new Date(), deletedById: doc.createdById });
    docs.push(doc);
  }
  await repo.insertMany(docs);
});

/** A search's scope and criteria, as the use case hands them to the repository. */
const search = (user: UserIdentity, body: Record<string, unknown>): [Scope, RecordCriteria] => [
  scopeOf(user),
  searchCriteria(RecordSearchSchema.parse(body)),
];

function expectIndexed(plan: QueryPlan, what: string) {
  expect(plan.indexed, `${what} is read through an index:\n${plan.plan}`).toBe(true);
  if (plan.store === 'ferretdb') expect(plan.filterPushed, `${what}: filter pushed down`).toBe(true);
}

/** A page (sorted, limited) and its total: both from the index, both in SQL on our build. */
async function expectPageAndCount([scope, criteria]: [Scope, RecordCriteria], what: string, exact = true) {
  const page = await planOf(model, recordQueries.page(scope, criteria, 100, undefined, 'createdAt') as PlannedQuery);
  expectIndexed(page, `${what} (page)`);
  const count = await countPlanOf(model, recordQueries.count(scope, criteria).filter);
  expectIndexed(count, `${what} (count)`);
  if (page.store === 'ferretdb' && exact) {
    expect(page.exact, `${what}: exact`).toBe(true);
    expect(page.sortPushed && page.limitPushed, `${what}: sort and limit in SQL`).toBe(true);
    expect(count.counted, `${what}: counted in SQL`).toBe(true);
  }
}

describe('lists', () => {
  it('the list, its total and a keyset page further on', async () => {
    await expectPageAndCount([scopeOf(bps), { deleted: false }], 'list');
    const after = { time: new Date(), id: new Types.ObjectId().toHexString() };
    const next = await planOf(
      model,
      recordQueries.page(scopeOf(bps), { deleted: false }, 100, after, 'createdAt') as PlannedQuery,
    );
    expectIndexed(next, 'keyset page');
    if (next.store === 'ferretdb') expect(next.exact && next.sortPushed && next.limitPushed).toBe(true);
  });

  it('the admin list of every agency', async () => {
    await expectPageAndCount([scopeOf(admin), { deleted: false }], 'admin list');
  });

  it('the deleted list, by deletion time', async () => {
    for (const user of [bps, admin]) {
      const page = await planOf(
        model,
        recordQueries.page(scopeOf(user), { deleted: true }, 100, undefined, 'deletedAt') as PlannedQuery,
      );
      expectIndexed(page, `${user.organization} deleted list`);
      if (page.store === 'ferretdb') expect(page.exact && page.sortPushed && page.limitPushed, page.plan).toBe(true);
    }
  });
});

describe('searches', () => {
  const bodies: Record<string, Record<string, unknown>> = {
    freeText: { freeText: 'smith fraud' },
    incidentNumber: { incidentNumber: '2026-1' },
    suspectDob: { suspectDob: '1980-01-01' },
    incidentDate: { incidentDate: '2024-01-01' },
    amount: { amount: '100.50' },
    caseAmount: { caseAmount: '100' },
    seizedAmount: { seizedAmount: '20.50' },
    confiscatedAmount: { confiscatedAmount: '0.25' },
    country: { country: 'Canada' },
    crimeType: { crimeType: 'Fraud' },
    cyberAssisted: { cyberAssisted: true },
    'every filter': {
      freeText: 'person',
      incidentNumber: 'BPS',
      suspectDob: '1980-01-01',
      incidentDate: '2024-01-01',
      country: 'Bermuda',
      crimeType: 'Fraud',
      cyberAssisted: false,
    },
  };
  for (const [name, body] of Object.entries(bodies)) {
    it(`${name}: its page and its total, for an agency and for ADMIN`, async () => {
      await expectPageAndCount(search(bps, body), `${name} (BPS)`);
      await expectPageAndCount(search(admin, body), `${name} (ADMIN)`);
    });
  }

  it('suspectName: the terms near each word in the vocabulary, then the candidates holding them', async () => {
    const vocabulary = await planOf(repo.nameTerms.model, nameTermQueries.near('dubios') as PlannedQuery);
    expectIndexed(vocabulary, 'terms near a word');
    const body = RecordSearchSchema.parse({ suspectName: 'marie helene dubios' });
    const near = await nearTerms({ records: repo }, body);
    expect(near.get('dubios')).toEqual(['dubios', 'dubois']);
    for (const user of [bps, admin]) {
      const q = recordQueries.nameCandidates(scopeOf(user), searchCriteria(body, near), 'createdAt');
      const plan = await planOf(model, q as PlannedQuery);
      expectIndexed(plan, `${user.organization} name candidates`);
    }
  });
});

describe('single records and the outbox', () => {
  it('by id, by ids, at a version, by incident key, the pending events and the import checks', async () => {
    const id = new Types.ObjectId();
    const plans: Array<[string, QueryPlan]> = [
      ['by id', await planOf(model, { filter: { _id: id } })],
      ['by ids', await planOf(model, recordQueries.byIds([id, new Types.ObjectId()]) as PlannedQuery)],
      ['at a version (every single-record write)', await planOf(model, { filter: { _id: id, version: 3 } })],
      ['incident key taken', await planOf(model, recordQueries.incidentKeyTaken('BPS-1', id) as PlannedQuery)],
      ['pending events', await planOf(model, recordQueries.pendingEvents(100) as PlannedQuery)],
      [
        'import: existing ids',
        await planOf(model, recordQueries.existingIds([id, new Types.ObjectId()]) as PlannedQuery),
      ],
      [
        'import: taken incident keys',
        await planOf(model, recordQueries.takenIncidentKeys(['BPS-1', 'FIA-2']) as PlannedQuery),
      ],
    ];
    for (const [what, plan] of plans) expectIndexed(plan, what);
  });
});

describe('searches on fields of many values, once the store has statistics', () => {
  it('a date of birth or an amount is found through its own index', async () => {
    const statsDb = await connectMongo({ url: t.mongoUrl, dbName: t.db('records-stats') });
    try {
      const stats = new RecordRepository(statsDb);
      await stats.init();
      // Enough changes for our FerretDB build to gather statistics (ANALYZE, in the background);
      // each date of birth and amount is held by one record or two.
      const docs = Array.from({ length: 800 }, (_, i) => {
        const organization = (['BPS', 'FIA', 'CUS'] as const)[i % 3] ?? 'BPS';
        const input = RecordInputSchema.parse(
          recordBody({
            incidentNumber: `${organization}-STAT-${i}`,
            suspectDob: `19${String(40 + (i % 60)).padStart(2, '0')}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
            caseAmount: `${1000 + i}.00`,
          }),
        );
        return newRecordDoc(input, { organization, createdById: new Types.ObjectId().toHexString() });
      });
      await stats.insertMany(docs);
      const searches: Array<[string, Record<string, unknown>]> = [
        ['suspectDob_1', { suspectDob: '1950-11-11' }],
        ['caseCents_1', { caseAmount: '1010.00' }],
      ];
      for (const [index, body] of searches) {
        const q = recordQueries.page(...search(bps, body), 100, undefined, 'createdAt') as PlannedQuery;
        // The statistics are gathered in the background: wait for a plan that uses them (on a
        // busy 2-core machine, with the rest of the suite running, that took over 10 s once).
        let plan = await planOf(stats.model, q);
        for (let tries = 0; !plan.plan.includes(index) && tries < 400; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          plan = await planOf(stats.model, q);
        }
        expect(plan.plan, `${JSON.stringify(body)} through ${index}`).toContain(index);
        expectIndexed(plan, JSON.stringify(body));
      }
    } finally {
      await statsDb.close();
    }
  }, 90_000);
});
