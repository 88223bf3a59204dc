import {
  type AdminStats,
  type CountryStat,
  centsToMoney,
  type DashboardStats,
  type Organization,
} from '@nrad/contracts';
import type { Connection } from 'mongoose';
import { type StatsConfig, StatsConfigSchema } from './config.ts';

/** Stats configuration for tests: the given database, stream, prefix and durable; quick redelivery. */
export function statsTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  recordsStream: string;
  recordsSubjectPrefix: string;
  consumer?: string;
}): StatsConfig {
  return StatsConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    RECORDS_STREAM: options.recordsStream,
    RECORDS_SUBJECT_PREFIX: options.recordsSubjectPrefix,
    RECORDS_CONSUMER: options.consumer ?? 'stats',
    // Events fetched but not handled when a test stops the service come back within a test's wait.
    EVENT_ACK_WAIT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
}

/** What the stats paths answer for one scope, counted another way. */
export interface DirectStats {
  stats: DashboardStats;
  countries: CountryStat[];
  admin: AdminStats;
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
  return {
    stats: {
      totalRecords: mine.length,
      thisMonth: mine.filter((r) => r.createdAt >= monthStart && r.createdAt < nextMonth).length,
      internationalCases: mine.filter((r) => r.internationalNexus).length,
      totalSeizedAmount: centsToMoney(seized),
      seizedYear: year,
    },
    countries: [...countries]
      .map(([country, count]) => ({ country, count }))
      .sort((a, b) => b.count - a.count || a.country.localeCompare(b.country, 'en')),
    admin: { bpsRecords: agency('BPS'), fiaRecords: agency('FIA'), cusRecords: agency('CUS') },
  };
}
