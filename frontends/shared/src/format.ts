const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** An amount in US dollars, en-US (`"1234.5"` → `$1,234.50`); blank or non-numeric → `$0.00`. */
export function formatUsd(amount: string | number | null | undefined): string {
  const n = typeof amount === 'number' ? amount : Number(String(amount ?? '').replace(/,/g, ''));
  return usd.format(Number.isFinite(n) ? n : 0);
}

const localDate = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * A calendar date (`YYYY-MM-DD`: a date of birth, an incident date) as MM/DD/YYYY. It is read and
 * written in UTC, so it is the same day in every time zone; anything else is shown as it is.
 */
export function formatDate(value: string | null | undefined): string {
  // Rearranged as text: no Date (and so no time zone, nor Date's 1900s for years below 100).
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value ?? '');
  return m ? `${m[2]}/${m[3]}/${m[1]}` : (value ?? '');
}

/** A moment (created, deleted) as the local calendar date MM/DD/YYYY; `fallback` when missing. */
export function formatMoment(value: string | null | undefined, fallback = ''): string {
  if (!value) return fallback;
  const time = Date.parse(value);
  return Number.isNaN(time) ? fallback : localDate.format(new Date(time));
}

const localDateTime = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: 'numeric',
  minute: '2-digit',
});

/** A moment to the minute (a report written), local: `11/24/2026, 4:05 PM`; `fallback` when missing. */
export function formatDateTime(value: string | null | undefined, fallback = ''): string {
  if (!value) return fallback;
  const time = Date.parse(value);
  return Number.isNaN(time) ? fallback : localDateTime.format(new Date(time));
}

/** The sum of amounts given as decimal strings, exact (in cents), as a decimal string. */
export function sumAmounts(...amounts: Array<string | null | undefined>): string {
  let cents = 0;
  for (const a of amounts) {
    const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec((a ?? '').trim());
    if (m) cents += Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  }
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
