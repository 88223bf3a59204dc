import { ALPHA3_NUMERIC, countryToAlpha3 } from '@nrad/contracts/country-codes';

/** The ISO numeric id (world-atlas's) of a country name, or undefined when it is not a country. */
export function numericIdOf(name: string): string | undefined {
  const alpha3 = countryToAlpha3(name);
  return alpha3 ? ALPHA3_NUMERIC[alpha3] : undefined;
}
