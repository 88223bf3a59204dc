import { CountryStatsSchema, DashboardStatsSchema } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { adminStatsOf, countryStatsOf, dashboardStatsOf, monthKey, type RecordState, StatsModel } from './figures.ts';

const NOW = new Date('2026-11-20T10:00:00Z');

const state = (over: Partial<RecordState> = {}): RecordState => ({
  organization: 'BPS',
  version: 1,
  deleted: false,
  country: 'Bermuda',
  internationalNexus: false,
  createdMonth: '2026-11',
  incidentYear: 2026,
  seizedCents: 0,
  ...over,
});

const dashboard = (model: StatsModel, organization: 'BPS' | 'FIA' | null = 'BPS') =>
  DashboardStatsSchema.parse(dashboardStatsOf(model.figures(organization), NOW));

describe('the stats model', () => {
  it('counts a record in total, this month, international, its country and its incident year', () => {
    const m = new StatsModel();
    m.apply('a', state({ internationalNexus: true, country: 'Canada', seizedCents: 12_345 }));
    m.apply('b', state({ createdMonth: '2026-10', incidentYear: 2025, seizedCents: 500 }));
    expect(dashboard(m)).toEqual({
      totalRecords: 2,
      thisMonth: 1,
      internationalCases: 1,
      totalSeizedAmount: '123.45',
      seizedYear: 2026,
    });
    expect(countryStatsOf(m.figures('BPS'))).toEqual([{ country: 'Canada', count: 1 }]);
  });

  it('moves counts with a newer version: delete, restore, edits of country, nexus, amount and year', () => {
    const m = new StatsModel();
    m.apply('a', state({ internationalNexus: true, country: 'Canada', seizedCents: 1000 }));
    m.apply('a', state({ version: 2, internationalNexus: true, country: 'Canada', seizedCents: 1000, deleted: true }));
    expect(dashboard(m)).toMatchObject({
      totalRecords: 0,
      thisMonth: 0,
      internationalCases: 0,
      totalSeizedAmount: '0.00',
    });
    expect(countryStatsOf(m.figures('BPS'))).toEqual([]);

    m.apply('a', state({ version: 3, internationalNexus: true, country: 'Canada', seizedCents: 1000 }));
    expect(dashboard(m)).toMatchObject({ totalRecords: 1, internationalCases: 1, totalSeizedAmount: '10.00' });

    m.apply('a', state({ version: 4, internationalNexus: true, country: 'Jamaica', seizedCents: 2500 }));
    expect(countryStatsOf(m.figures('BPS'))).toEqual([{ country: 'Jamaica', count: 1 }]);
    expect(dashboard(m).totalSeizedAmount).toBe('25.00');

    m.apply('a', state({ version: 5, seizedCents: 2500, incidentYear: 2025 }));
    expect(dashboard(m)).toMatchObject({ totalRecords: 1, internationalCases: 0, totalSeizedAmount: '0.00' });
    expect(countryStatsOf(m.figures('BPS'))).toEqual([]);
  });

  it('ignores a version it has seen or an older one', () => {
    const m = new StatsModel();
    expect(m.apply('a', state({ version: 3, seizedCents: 100 }))).toBe(true);
    expect(m.apply('a', state({ version: 3, seizedCents: 100 }))).toBe(false);
    expect(m.apply('a', state({ version: 2, deleted: true }))).toBe(false);
    expect(dashboard(m)).toMatchObject({ totalRecords: 1, totalSeizedAmount: '1.00' });
    expect(m.versionOf('a')).toBe(3);
  });

  it('keeps organizations apart; all of them add up for ADMIN; admin counts per agency', () => {
    const m = new StatsModel();
    m.apply('a', state());
    m.apply('b', state({ organization: 'FIA' }));
    m.apply('c', state({ organization: 'FIA', deleted: true }));
    m.apply('d', state({ organization: 'ADMIN' }));
    expect(dashboard(m, 'FIA').totalRecords).toBe(1);
    expect(dashboard(m, null).totalRecords).toBe(3);
    expect(adminStatsOf(m)).toEqual({ bpsRecords: 1, fiaRecords: 1, cusRecords: 0 });
  });

  it('sorts countries by count, ties by name', () => {
    const m = new StatsModel();
    const add = (id: string, country: string) => m.apply(id, state({ internationalNexus: true, country }));
    add('1', 'Jamaica');
    add('2', 'Canada');
    add('3', 'Bahamas');
    add('4', 'Jamaica');
    const countries = CountryStatsSchema.parse(countryStatsOf(m.figures('BPS')));
    expect(countries).toEqual([
      { country: 'Jamaica', count: 2 },
      { country: 'Bahamas', count: 1 },
      { country: 'Canada', count: 1 },
    ]);
  });

  it('sums seized amounts exactly beyond 2^53 cents', () => {
    const m = new StatsModel();
    for (let i = 0; i < 1000; i++) m.apply(String(i), state({ seizedCents: 999_999_999_999 }));
    expect(dashboard(m).totalSeizedAmount).toBe('9999999999990.00');
    for (let i = 0; i < 20_000; i++) m.apply(`x${i}`, state({ seizedCents: 999_999_999_999 }));
    expect(dashboard(m).totalSeizedAmount).toBe('209999999999790.00');
  });

  it('reads the month in UTC', () => {
    expect(monthKey(new Date('2026-11-30T23:30:00-05:00'))).toBe('2026-12');
  });
});
