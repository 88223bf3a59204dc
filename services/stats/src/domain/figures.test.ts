import { BREAKDOWN_MONTHS, CountryStatsSchema, DashboardStatsSchema, StatsBreakdownSchema } from '@nrad/contracts';
import { Scope } from '@nrad/service-kit';
import { describe, expect, it } from 'vitest';
import {
  adminStatsOf,
  breakdownOf,
  countryStatsOf,
  dashboardStatsOf,
  monthKey,
  type RecordState,
  StatsModel,
} from './figures.ts';

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
  detailed: true,
  incidentMonth: '2026-11',
  crimeType: null,
  crimeSubtype: null,
  cyberAssisted: false,
  caseCents: 0,
  confiscatedCents: 0,
  ...over,
});

const dashboard = (model: StatsModel, organization: 'BPS' | 'FIA' | null = 'BPS') =>
  DashboardStatsSchema.parse(
    dashboardStatsOf(model.figures(organization ? Scope.agency(organization) : Scope.system('test')), NOW),
  );

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
    expect(countryStatsOf(m.figures(Scope.agency('BPS')))).toEqual([{ country: 'Canada', count: 1 }]);
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
    expect(countryStatsOf(m.figures(Scope.agency('BPS')))).toEqual([]);

    m.apply('a', state({ version: 3, internationalNexus: true, country: 'Canada', seizedCents: 1000 }));
    expect(dashboard(m)).toMatchObject({ totalRecords: 1, internationalCases: 1, totalSeizedAmount: '10.00' });

    m.apply('a', state({ version: 4, internationalNexus: true, country: 'Jamaica', seizedCents: 2500 }));
    expect(countryStatsOf(m.figures(Scope.agency('BPS')))).toEqual([{ country: 'Jamaica', count: 1 }]);
    expect(dashboard(m).totalSeizedAmount).toBe('25.00');

    m.apply('a', state({ version: 5, seizedCents: 2500, incidentYear: 2025 }));
    expect(dashboard(m)).toMatchObject({ totalRecords: 1, internationalCases: 0, totalSeizedAmount: '0.00' });
    expect(countryStatsOf(m.figures(Scope.agency('BPS')))).toEqual([]);
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
    expect(() => adminStatsOf(m, Scope.agency('BPS'))).toThrow();
    expect(adminStatsOf(m, Scope.system('test'))).toEqual({ bpsRecords: 1, fiaRecords: 1, cusRecords: 0 });
  });

  it('sorts countries by count, ties by name', () => {
    const m = new StatsModel();
    const add = (id: string, country: string) => m.apply(id, state({ internationalNexus: true, country }));
    add('1', 'Jamaica');
    add('2', 'Canada');
    add('3', 'Bahamas');
    add('4', 'Jamaica');
    const countries = CountryStatsSchema.parse(countryStatsOf(m.figures(Scope.agency('BPS'))));
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

  it('breaks the figures down: months, crime types and subtypes, cyber share, amounts and their ratio', () => {
    const m = new StatsModel();
    m.apply(
      'a',
      state({ crimeType: 'Fraud', crimeSubtype: 'Wire Fraud', incidentMonth: '2026-11', cyberAssisted: true }),
    );
    m.apply(
      'b',
      state({
        crimeType: 'Fraud',
        crimeSubtype: 'Wire Fraud',
        incidentMonth: '2025-01',
        incidentYear: 2025,
        seizedCents: 10_000,
      }),
    );
    m.apply('c', state({ crimeType: 'Fraud', crimeSubtype: null, incidentMonth: '2024-11', createdMonth: '2026-10' }));
    m.apply('d', state({ crimeType: null, caseCents: 250, seizedCents: 20_000, confiscatedCents: 5_000 }));
    m.apply('e', state({ organization: 'FIA', crimeType: 'Tax Crimes', cyberAssisted: true }));
    m.apply('f', state({ crimeType: 'Drug Trafficking', deleted: true, cyberAssisted: true }));
    const b = StatsBreakdownSchema.parse(breakdownOf(m.figures(Scope.agency('BPS')), 'BPS', NOW));
    expect(b.totalRecords).toBe(4);
    expect(b.cyberAssisted).toEqual({ count: 1, share: 0.25 });
    expect(b.months).toHaveLength(BREAKDOWN_MONTHS);
    expect(b.months[0]).toEqual({ month: '2024-12', incidents: 0, recorded: 0 }); // 2024-11 is 25 months back
    expect(b.months.find((x) => x.month === '2025-01')).toEqual({ month: '2025-01', incidents: 1, recorded: 0 });
    expect(b.months.at(-1)).toEqual({ month: '2026-11', incidents: 2, recorded: 3 });
    expect(b.months.find((x) => x.month === '2026-10')).toEqual({ month: '2026-10', incidents: 0, recorded: 1 });
    expect(b.crimeTypes).toEqual([
      {
        crimeType: 'Fraud',
        count: 3,
        subtypes: [
          { subtype: 'Wire Fraud', count: 2 },
          { subtype: null, count: 1 },
        ],
      },
      { crimeType: null, count: 1, subtypes: [{ subtype: null, count: 1 }] },
    ]);
    expect(b.amounts).toEqual({
      caseTotal: '2.50',
      seizedTotal: '300.00',
      confiscatedTotal: '50.00',
      confiscatedToSeized: 0.1667,
      seizedThisYear: '200.00',
      year: 2026,
    });
    expect(b.withoutDetail).toBe(0);
    // An edit moves the record between crime types; ADMIN's scope counts every agency.
    m.apply('c', state({ version: 2, crimeType: 'Tax Crimes', incidentMonth: '2026-11' }));
    const all = breakdownOf(m.figures(Scope.system('test')), 'ALL', NOW);
    expect(all.crimeTypes.map((t) => [t.crimeType, t.count])).toEqual([
      ['Fraud', 2],
      ['Tax Crimes', 2],
      [null, 1],
    ]);
    expect(all.cyberAssisted).toEqual({ count: 2, share: 0.4 });
  });

  it('counts a state stored before the breakdowns in the totals and in withoutDetail only', () => {
    const m = new StatsModel();
    m.apply('a', state({ detailed: false, crimeType: null, seizedCents: 100 }));
    m.apply('b', state({ crimeType: 'Fraud', cyberAssisted: true }));
    const b = breakdownOf(m.figures(Scope.agency('BPS')), 'BPS', NOW);
    expect(b).toMatchObject({ totalRecords: 2, withoutDetail: 1, cyberAssisted: { count: 1, share: 1 } });
    expect(b.crimeTypes).toEqual([{ crimeType: 'Fraud', count: 1, subtypes: [{ subtype: null, count: 1 }] }]);
    expect(b.amounts.confiscatedToSeized).toBe(0);
    expect(breakdownOf(new StatsModel().figures(Scope.agency('CUS')), 'CUS', NOW)).toMatchObject({
      cyberAssisted: { count: 0, share: null },
      amounts: { confiscatedToSeized: null },
    });
  });
});
