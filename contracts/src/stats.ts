import { z } from 'zod';

/** A count of records: a whole number, never negative. */
const Count = z.number().int().nonnegative();

/**
 * `GET /api/stats` (SPEC §3 "Dashboard stats"), for the caller's agency (ADMIN: every
 * organization). Non-deleted records only. `thisMonth` counts records created in the current
 * calendar month (UTC); `totalSeizedAmount` sums the seized amounts of records whose incident date
 * falls in `seizedYear`, the current calendar year (UTC), as a decimal string like "1234.50".
 */
export const DashboardStatsSchema = z.object({
  totalRecords: Count,
  thisMonth: Count,
  internationalCases: Count,
  totalSeizedAmount: z.string().regex(/^\d+\.\d{2}$/, 'must be an amount such as "1234.50"'),
  seizedYear: z.number().int(),
});
export type DashboardStats = z.infer<typeof DashboardStatsSchema>;

/**
 * `GET /api/stats/countries` (SPEC §3 "Country stats"): the caller's non-deleted records with an
 * international nexus, counted by their country; most incidents first, ties by name.
 */
export const CountryStatSchema = z.object({ country: z.string(), count: Count.positive() });
export const CountryStatsSchema = z.array(CountryStatSchema);
export type CountryStat = z.infer<typeof CountryStatSchema>;

/** `GET /api/admin/stats` (SPEC §3 "Admin stats"), ADMIN only: non-deleted records per agency. */
export const AdminStatsSchema = z.object({ bpsRecords: Count, fiaRecords: Count, cusRecords: Count });
export type AdminStats = z.infer<typeof AdminStatsSchema>;

/** Months `GET /api/stats/breakdown` lists, ending with the current one. */
export const BREAKDOWN_MONTHS = 24;

const Money = z.string().regex(/^\d+\.\d{2}$/, 'must be an amount such as "1234.50"');
/** A share of the total, 0 to 1; null when there is nothing to divide by. */
const Share = z.number().min(0).max(1).nullable();

/**
 * `GET /api/stats/breakdown` (beyond SPEC; what a report is written from): the caller's agency's
 * non-deleted records (ADMIN: every agency's), broken down. Aggregates only: no record, name,
 * date of birth or incident number.
 * - `months`: the last BREAKDOWN_MONTHS calendar months (UTC), oldest first, each with the
 *   records whose incident date falls in it (`incidents`) and those created in it (`recorded`);
 * - `crimeTypes`: by crime type (null: not given), most first, each by subtype (null: not given);
 * - `countries`: as `GET /api/stats/countries` (records with an international nexus);
 * - `amounts`: sums over every year as decimal strings, the confiscated-to-seized ratio (null
 *   when nothing was seized), and the seized sum of the current year (the dashboard's card);
 * - `withoutDetail`: records counted in the totals whose crime type, cyber flag, amounts and
 *   incident month the read model does not hold yet (0 once it is rebuilt from the stream).
 */
export const StatsBreakdownSchema = z.object({
  scope: z.enum(['BPS', 'FIA', 'CUS', 'ALL']),
  asOf: z.string(),
  totalRecords: Count,
  internationalCases: Count,
  cyberAssisted: z.object({ count: Count, share: Share }),
  months: z.array(z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), incidents: Count, recorded: Count })),
  crimeTypes: z.array(
    z.object({
      crimeType: z.string().nullable(),
      count: Count.positive(),
      subtypes: z.array(z.object({ subtype: z.string().nullable(), count: Count.positive() })),
    }),
  ),
  countries: CountryStatsSchema,
  amounts: z.object({
    caseTotal: Money,
    seizedTotal: Money,
    confiscatedTotal: Money,
    confiscatedToSeized: z.number().nonnegative().nullable(),
    seizedThisYear: Money,
    year: z.number().int(),
  }),
  withoutDetail: Count,
});
export type StatsBreakdown = z.infer<typeof StatsBreakdownSchema>;
