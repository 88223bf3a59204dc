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
