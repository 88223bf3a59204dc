const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** An amount in US dollars, en-US (`"1234.5"` → `$1,234.50`); blank or non-numeric → `$0.00`. */
export function formatUsd(amount: string | number | null | undefined): string {
  const n = typeof amount === 'number' ? amount : Number(String(amount ?? '').replace(/,/g, ''));
  return usd.format(Number.isFinite(n) ? n : 0);
}
