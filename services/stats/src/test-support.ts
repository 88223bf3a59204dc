import {
  type AdminStats,
  BREAKDOWN_MONTHS,
  type CountryStat,
  centsToMoney,
  type DashboardStats,
  type Organization,
  type StatsBreakdown,
} from '@nrad/contracts';
import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import type { Connection } from 'mongoose';
import { type StatsConfig, StatsConfigSchema } from './config.ts';

/**
 * Stats configuration for tests: the given database, stream, prefix and durable; quick redelivery.
 * The AUDIT stream and prefix default to the siblings of the records ones, as the records service's
 * test configuration names them (`t1a2b3c_RECORDS` → `t1a2b3c_AUDIT`, `t1a2b3c.records` →
 * `t1a2b3c.audit`, else `<stream>_AUDIT`, `<prefix>_audit`): in the test's namespace.
 */
export function statsTestConfig(options: {
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  recordsStream: string;
  recordsSubjectPrefix: string;
  auditStream?: string;
  auditSubjectPrefix?: string;
  consumer?: string;
}): StatsConfig {
  return StatsConfigSchema.parse({
    ...testIdentityEnv('stats'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    RECORDS_STREAM: options.recordsStream,
    RECORDS_SUBJECT_PREFIX: options.recordsSubjectPrefix,
    RECORDS_CONSUMER: options.consumer ?? 'stats',
    AUDIT_STREAM: options.auditStream ?? sibling(options.recordsStream, /(^|_)RECORDS$/, 'AUDIT', '_'),
    AUDIT_SUBJECT_PREFIX:
      options.auditSubjectPrefix ?? sibling(options.recordsSubjectPrefix, /(^|\.)records$/, 'audit', '_'),
    // Events fetched but not handled when a test stops the service come back within a test's wait.
    EVENT_ACK_WAIT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
}

/** `name` with its last token `pattern` replaced by `token`, or `token` appended after `separator`. */
function sibling(name: string, pattern: RegExp, token: string, separator: string): string {
  return pattern.test(name) ? name.replace(pattern, `$1${token}`) : `${name}${separator}${token}`;
}

/** What the stats paths answer for one scope, counted another way. */
export interface DirectStats {
  stats: DashboardStats;
  countries: CountryStat[];
  admin: AdminStats;
  breakdown: Omit<StatsBreakdown, 'asOf'>;
}

/** `YYYY-MM` of the month `back` months before `now`'s (UTC). */
const monthBefore = (now: Date, back: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);

/** Counts by key, most first, ties by key (null last). */
function ranked<T>(rows: T[], keyOf: (r: T) => string | null): Array<{ key: string | null; count: number }> {
  const counts = new Map<string | null, number>();
  for (const r of rows) counts.set(keyOf(r), (counts.get(keyOf(r)) ?? 0) + 1);
  return [...counts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key ?? '\uffff').localeCompare(b.key ?? '\uffff', 'en'));
}

/**
 * The figures counted directly over the records service's own collection (tests and benchmarks
 * only: no service reads another's database): its stored dates, cents and flags, filtered and
 * summed here, independently of the events and the read model. `organization` null counts every
 * organization (ADMIN's view).
 */
export async function directStats(
  recordsDb: Connection,
  organization: Organization | null,
  now = new Date(),
): Promise<DirectStats> {
  const year = now.getUTCFullYear();
  const monthStart = new Date(Date.UTC(year, now.getUTCMonth(), 1));
  const nextMonth = new Date(Date.UTC(year, now.getUTCMonth() + 1, 1));
  const rows = await recordsDb
    .collection('records')
    .find(
      { deleted: false },
      {
        projection: {
          organization: 1,
          createdAt: 1,
          incidentDate: 1,
          seizedCents: 1,
          internationalNexus: 1,
          country: 1,
          caseCents: 1,
          confiscatedCents: 1,
          cyberAssisted: 1,
          crimeType: 1,
          crimeSubtype: 1,
        },
      },
    )
    .toArray();
  const mine = rows.filter((r) => organization === null || r.organization === organization);
  let seized = 0n;
  const countries = new Map<string, number>();
  for (const r of mine) {
    if ((r.incidentDate as Date).getUTCFullYear() === year) seized += BigInt(r.seizedCents as number);
    if (r.internationalNexus) countries.set(r.country as string, (countries.get(r.country as string) ?? 0) + 1);
  }
  const agency = (code: Organization) => rows.filter((r) => r.organization === code).length;
  const sum = (field: string) => mine.reduce((total, r) => total + BigInt(r[field] as number), 0n);
  const [caseSum, seizedSum, confiscatedSum] = [sum('caseCents'), sum('seizedCents'), sum('confiscatedCents')];
  const cyber = mine.filter((r) => r.cyberAssisted).length;
  const monthOf = (d: unknown) => (d as Date).toISOString().slice(0, 7);
  const months = Array.from({ length: BREAKDOWN_MONTHS }, (_, i) => monthBefore(now, BREAKDOWN_MONTHS - 1 - i));
  const countryList = [...countries]
    .map(([country, count]) => ({ country, count }))
    .sort((a, b) => b.count - a.count || a.country.localeCompare(b.country, 'en'));
  return {
    stats: {
      totalRecords: mine.length,
      thisMonth: mine.filter((r) => r.createdAt >= monthStart && r.createdAt < nextMonth).length,
      internationalCases: mine.filter((r) => r.internationalNexus).length,
      totalSeizedAmount: centsToMoney(seized),
      seizedYear: year,
    },
    countries: countryList,
    admin: { bpsRecords: agency('BPS'), fiaRecords: agency('FIA'), cusRecords: agency('CUS') },
    breakdown: {
      scope: organization === null || organization === 'ADMIN' ? 'ALL' : organization,
      totalRecords: mine.length,
      internationalCases: mine.filter((r) => r.internationalNexus).length,
      cyberAssisted: { count: cyber, share: mine.length ? Math.round((cyber / mine.length) * 10_000) / 10_000 : null },
      months: months.map((month) => ({
        month,
        incidents: mine.filter((r) => monthOf(r.incidentDate) === month).length,
        recorded: mine.filter((r) => monthOf(r.createdAt) === month).length,
      })),
      crimeTypes: ranked(mine, (r) => (r.crimeType as string | null) ?? null).map(({ key, count }) => ({
        crimeType: key,
        count,
        subtypes: ranked(
          mine.filter((r) => ((r.crimeType as string | null) ?? null) === key),
          (r) => (r.crimeSubtype as string | null) ?? null,
        ).map((s) => ({ subtype: s.key, count: s.count })),
      })),
      countries: countryList,
      amounts: {
        caseTotal: centsToMoney(caseSum),
        seizedTotal: centsToMoney(seizedSum),
        confiscatedTotal: centsToMoney(confiscatedSum),
        confiscatedToSeized:
          seizedSum === 0n ? null : Math.round((Number(confiscatedSum) / Number(seizedSum)) * 10_000) / 10_000,
        seizedThisYear: centsToMoney(seized),
        year,
      },
      withoutDetail: 0,
    },
  };
}
