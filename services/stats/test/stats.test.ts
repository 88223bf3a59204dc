import { AdminStatsSchema, IDENTITY_HEADER } from '@nrad/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { type StatsHarness, startStats, userOf, YEAR } from './harness.ts';

let h: StatsHarness;
beforeAll(async () => {
  h = await startStats();
});

// The organizations are fixed (BPS, FIA, CUS, ADMIN) and share this file's databases, so each test
// compares figures before and after its own changes, and with the direct count.
const bps = userOf('BPS');
const fia = userOf('FIA');
const cus = userOf('CUS');
const admin = userOf('ADMIN');

const countOf = (countries: Array<{ country: string; count: number }>, country: string) =>
  countries.find((c) => c.country === country)?.count ?? 0;

describe('the stats paths', () => {
  it('answer zeros and an empty country list before any record, with the current year', async () => {
    expect(await h.stats(cus)).toEqual({
      totalRecords: 0,
      thisMonth: 0,
      internationalCases: 0,
      totalSeizedAmount: '0.00',
      seizedYear: YEAR,
    });
    expect(await h.countries(cus)).toEqual([]);
    expect(AdminStatsSchema.parse((await (await h.as(admin)).get('/api/admin/stats').expect(200)).body)).toEqual({
      bpsRecords: 0,
      fiaRecords: 0,
      cusRecords: 0,
    });
  });

  it('count a new record in total and this month; international ones by country; seized of this incident year', async () => {
    const before = await h.stats(bps);
    const countriesBefore = await h.countries(bps);
    await h.create(bps, { seizedAmount: '100.25' });
    await h.create(bps, { internationalNexus: true, country: 'Canada', seizedAmount: '50' });
    await h.create(bps, {
      internationalNexus: true,
      country: 'Canada',
      incidentDate: `${YEAR - 1}-06-15`,
      seizedAmount: '999',
    });
    await h.create(bps, { internationalNexus: true, country: 'Jamaica' });
    const after = await h.stats(bps);
    expect(after.totalRecords - before.totalRecords).toBe(4);
    expect(after.thisMonth - before.thisMonth).toBe(4);
    expect(after.internationalCases - before.internationalCases).toBe(3);
    // Last year's incident does not count in this year's seized total.
    expect(Number(after.totalSeizedAmount) - Number(before.totalSeizedAmount)).toBeCloseTo(150.25, 2);
    const countries = await h.countries(bps);
    expect(countOf(countries, 'Canada') - countOf(countriesBefore, 'Canada')).toBe(2);
    expect(countOf(countries, 'Jamaica') - countOf(countriesBefore, 'Jamaica')).toBe(1);
    // Domestic records (no international nexus) are not on the map.
    expect(countOf(countries, 'Bermuda')).toBe(0);
    await h.expectDirect(bps);
  });

  it('stop counting a deleted record and count it again once restored', async () => {
    const record = await h.create(fia, { internationalNexus: true, country: 'Bahamas', seizedAmount: '10' });
    const counted = await h.stats(fia);
    const deleted = await h.remove(fia, record);
    const gone = await h.stats(fia);
    expect(counted.totalRecords - gone.totalRecords).toBe(1);
    expect(counted.thisMonth - gone.thisMonth).toBe(1);
    expect(counted.internationalCases - gone.internationalCases).toBe(1);
    expect(Number(counted.totalSeizedAmount) - Number(gone.totalSeizedAmount)).toBeCloseTo(10, 2);
    expect(countOf(await h.countries(fia), 'Bahamas')).toBe(0);
    await h.expectDirect(fia);

    await h.restore(fia, deleted);
    expect(await h.stats(fia)).toEqual(counted);
    expect(countOf(await h.countries(fia), 'Bahamas')).toBe(1);
    await h.expectDirect(fia);
  });

  it('move counts when an edit changes the country, the nexus, the seized amount or the incident year', async () => {
    let record = await h.create(cus, { internationalNexus: true, country: 'Canada', seizedAmount: '20' });
    const start = await h.stats(cus);
    const startCountries = await h.countries(cus);

    record = await h.edit(cus, record, { country: 'Jamaica' });
    const countries = await h.countries(cus);
    expect(countOf(countries, 'Canada')).toBe(countOf(startCountries, 'Canada') - 1);
    expect(countOf(countries, 'Jamaica')).toBe(countOf(startCountries, 'Jamaica') + 1);
    expect(await h.stats(cus)).toEqual(start);

    record = await h.edit(cus, record, { seizedAmount: '35.50' });
    expect(Number((await h.stats(cus)).totalSeizedAmount) - Number(start.totalSeizedAmount)).toBeCloseTo(15.5, 2);

    record = await h.edit(cus, record, { incidentDate: `${YEAR - 1}-12-31` });
    expect(Number(start.totalSeizedAmount) - Number((await h.stats(cus)).totalSeizedAmount)).toBeCloseTo(20, 2);

    record = await h.edit(cus, record, { internationalNexus: false, country: 'Bermuda' });
    const domestic = await h.stats(cus);
    expect(start.internationalCases - domestic.internationalCases).toBe(1);
    expect(domestic.totalRecords).toBe(start.totalRecords);
    expect(countOf(await h.countries(cus), 'Jamaica')).toBe(countOf(startCountries, 'Jamaica'));
    await h.expectDirect(cus);
  });

  it('keep agencies apart: one agency’s changes leave the others’ figures as they were', async () => {
    const others = { fia: await h.stats(fia), cus: await h.stats(cus), fiaCountries: await h.countries(fia) };
    const record = await h.create(bps, { internationalNexus: true, country: 'Cuba', seizedAmount: '7' });
    await h.edit(bps, record, { country: 'Haiti' });
    await h.remove(bps, record);
    expect(await h.stats(fia)).toEqual(others.fia);
    expect(await h.stats(cus)).toEqual(others.cus);
    expect(await h.countries(fia)).toEqual(others.fiaCountries);
  });

  it('give ADMIN every organization’s figures (its own records too) and the per-agency counts', async () => {
    await h.create(admin, { internationalNexus: true, country: 'Canada' });
    await h.expectDirect(admin);
    const all = await h.stats(admin);
    const parts = await Promise.all([bps, fia, cus].map((u) => h.stats(u)));
    expect(all.totalRecords).toBe(parts.reduce((n, s) => n + s.totalRecords, 0) + 1);
    const adminStats = (await (await h.as(admin)).get('/api/admin/stats').expect(200)).body;
    expect(adminStats).toEqual({
      bpsRecords: parts[0]?.totalRecords,
      fiaRecords: parts[1]?.totalRecords,
      cusRecords: parts[2]?.totalRecords,
    });
  });

  it('refuse the admin counts to agencies (403) and every path to a caller without an identity (401)', async () => {
    for (const user of [bps, fia, cus]) {
      const res = await (await h.as(user)).get('/api/admin/stats').expect(403);
      expect(res.body).toEqual({ message: 'Admin privileges required', code: 'FORBIDDEN' });
    }
    const api = await h.as(bps);
    for (const path of ['/api/stats', '/api/stats/countries', '/api/admin/stats']) {
      const bare = api.get(path).unset(IDENTITY_HEADER);
      expect((await bare).status, path).toBe(401);
    }
  });
});
