import { z } from 'zod';

/** A MongoDB ObjectId as 24 hex characters. */
export const ObjectIdSchema = z.string().regex(/^[a-f\d]{24}$/i, 'must be a valid id');

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A calendar date without time of day. Accepts `YYYY-MM-DD` or an ISO date-time (what a browser's
 * `JSON.stringify(new Date(...))` sends) and keeps only the date part as written, so a date of
 * birth never shifts by a time zone. Rejects dates that do not exist (2023-02-30).
 */
export const DateOnlySchema = z
  .string({ error: 'must be a date (YYYY-MM-DD)' })
  .trim()
  .refine((s) => DATE_ONLY.test(s) || ISO_DATE_TIME.test(s), 'must be a date (YYYY-MM-DD)')
  .transform((s) => s.slice(0, 10))
  .refine(isRealDate, 'must be a real calendar date');

/** Whether a `YYYY-MM-DD` string names a day that exists. */
export function isRealDate(s: string): boolean {
  const m = DATE_ONLY.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1800 || mo < 1 || mo > 12 || d < 1) return false;
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

/**
 * The latest calendar date that is not "in the future" for a user somewhere on Earth: today in the
 * time zone furthest ahead of UTC (UTC+14). Compared with `YYYY-MM-DD` strings.
 */
export function latestAllowedDate(now: Date = new Date()): string {
  return new Date(now.getTime() + 14 * 3_600_000).toISOString().slice(0, 10);
}

const MONEY = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/**
 * A non-negative amount with at most 2 decimals and 12 digits in all (decimal 12,2 — SPEC §3).
 * Accepts a decimal string ("1234.5") or a number; yields the canonical string "1234.50".
 */
export const MoneySchema = z
  .union([z.string().trim(), z.number()], { error: 'must be an amount such as "1234.50"' })
  .transform((v, ctx) => {
    const s = typeof v === 'number' ? numberToDecimalString(v) : v === '' ? '0' : v;
    const m = s === undefined ? null : MONEY.exec(s);
    if (!m) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a non-negative amount with at most 2 decimals and 12 digits',
      });
      return z.NEVER;
    }
    return `${BigInt(m[1] ?? '0').toString()}.${(m[2] ?? '').padEnd(2, '0')}`;
  });

function numberToDecimalString(n: number): string | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  // Up to 2 decimals survive toFixed(2) exactly; more would be silently rounded, so refuse them.
  const fixed = n.toFixed(2);
  return Math.abs(Number(fixed) - n) < 1e-9 ? fixed : undefined;
}

/** "1234.50" → 123450. The string must be canonical (MoneySchema output). */
export function moneyToCents(amount: string): number {
  const [units = '0', cents = '0'] = amount.split('.');
  return Number(units) * 100 + Number(cents.padEnd(2, '0').slice(0, 2));
}

/** 123450 → "1234.50". A bigint for sums that may outgrow a safe integer (totals of many amounts). */
export function centsToMoney(cents: number | bigint): string {
  if (typeof cents === 'bigint') {
    if (cents < 0n) throw new RangeError(`invalid cents: ${cents}`);
    return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  }
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`invalid cents: ${cents}`);
  const units = Math.floor(cents / 100);
  return `${units}.${String(cents % 100).padStart(2, '0')}`;
}

/**
 * `?limit=&offset=` of a short list read a page at a time (reports, contact requests): `limit`
 * from 1 to `max` (default 20), `offset` from 0 to 100,000.
 */
export function offsetPageQuery(max: number) {
  return z.object({
    limit: z.coerce
      .number({ error: 'Limit must be a whole number' })
      .int('Limit must be a whole number')
      .min(1, 'Limit must be at least 1')
      .max(max, `Limit must be at most ${max}`)
      .default(20),
    offset: z.coerce
      .number({ error: 'Offset must be a whole number' })
      .int('Offset must be a whole number')
      .min(0, 'Offset must be 0 or more')
      .max(100_000, 'Offset must be at most 100000')
      .default(0),
  });
}
