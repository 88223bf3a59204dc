import { COUNTRY_ALPHA3 } from './generated/country-codes.ts';

let folded: Map<string, string> | undefined;

function fold(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * ISO 3166-1 alpha-3 code for a country name: exact first, then ignoring case, accents and
 * punctuation ("cote d ivoire" → CIV). `undefined` when the name is not a country.
 */
export function countryToAlpha3(name: string): string | undefined {
  const exact = COUNTRY_ALPHA3[name];
  if (exact) return exact;
  if (!folded) folded = new Map(Object.entries(COUNTRY_ALPHA3).map(([k, v]) => [fold(k), v]));
  return folded.get(fold(name));
}
