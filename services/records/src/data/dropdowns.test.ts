import { testNamespace } from '@nrad/infra/harness';
import { connectMongo } from '@nrad/service-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { DropdownRepository, OPTIONS_FRESH_MS } from './dropdowns.ts';

const t = testNamespace();
const db = await connectMongo({ url: t.mongoUrl, dbName: t.db('records') });
afterAll(() => db.close());
const admin = '6'.repeat(24);
const values = async (options: Promise<Array<{ value: string }>>) => (await options).map((o) => o.value);

describe('option lists kept for checking writes (issue 38)', () => {
  it('reads a list once for concurrent checks, again once it is OPTIONS_FRESH_MS old or saved here', async () => {
    // Two instances of the service on one store.
    const here = new DropdownRepository(db);
    const there = new DropdownRepository(db);
    await here.seed({ source: ['Tip Line', 'Other'], country: ['Jamaica'] });
    const first = here.recent('source');
    expect(here.recent('source')).toBe(first); // one read shared
    expect(await values(first)).toEqual(['Tip Line', 'Other']);
    expect(await values(there.recent('source'))).toEqual(['Tip Line', 'Other']);

    // Saved here: forgotten here at once; the other instance's copy is at most OPTIONS_FRESH_MS old.
    const savedAt = Date.now();
    await here.replace('source', ['Other'], admin);
    expect(await values(here.recent('source'))).toEqual(['Other']);
    const seenThere = await values(there.recent('source'));
    if (Date.now() - savedAt < OPTIONS_FRESH_MS / 2) expect(seenThere).toEqual(['Tip Line', 'Other']);
    await new Promise((r) => setTimeout(r, OPTIONS_FRESH_MS + 50));
    expect(await values(there.recent('source'))).toEqual(['Other']);
    // `list` (what GET /api/dropdown-options answers) always reads the store.
    await here.replace('source', ['Other', 'Tip Line'], admin);
    expect(await values(there.list('source'))).toEqual(['Other', 'Tip Line']);
  });
});
