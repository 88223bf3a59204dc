import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, renderCountryCodes } from '../scripts/generate-country-codes.ts';
import { ALPHA3_NUMERIC, COUNTRY_ALPHA3, countryToAlpha3 } from './country-codes.ts';
import {
  COUNTRIES,
  CRIME_SUBTYPES,
  CRIME_TYPES,
  DEFAULT_COUNTRY,
  DEFAULT_SOURCE_OPTIONS,
  isSubtypeOf,
  NAMLC_AGENCY,
  NAMLC_ORGANIZATIONS,
  NAMLC_REFERRAL_SOURCE,
  ORGANIZATION_NAMES,
} from './index.ts';

describe('organizations', () => {
  it('have the codes and display names of SPEC §1', () => {
    expect(ORGANIZATION_NAMES).toEqual({
      BPS: 'Bermuda Police Service',
      FIA: 'Financial Intelligence Agency',
      CUS: 'Customs',
      ADMIN: 'System Administration',
    });
    expect(NAMLC_ORGANIZATIONS).toEqual(['Financial Intelligence Agency', 'Bermuda Police Service', 'Customs']);
    for (const name of NAMLC_ORGANIZATIONS) expect(ORGANIZATION_NAMES[NAMLC_AGENCY[name]]).toBe(name);
  });
});

describe('crime types (SPEC §9)', () => {
  it('are the 20 types in order, each with its subtypes', () => {
    expect(CRIME_TYPES).toHaveLength(20);
    expect(CRIME_TYPES[0]).toBe('Fraud');
    expect(CRIME_TYPES[15]).toBe('Kidnapping/illegal restraint and hostage-taking');
    expect(CRIME_TYPES[19]).toBe('Unspecified predicate offences');
    expect(CRIME_SUBTYPES['Money Laundering']).toHaveLength(15);
    expect(CRIME_SUBTYPES.Fraud).toHaveLength(9);
    expect(CRIME_SUBTYPES.Piracy).toEqual(['Maritime', 'Digital', 'Intellectual Property Theft']);
    const total = Object.values(CRIME_SUBTYPES).reduce((n, s) => n + s.length, 0);
    expect(total).toBe(95);
  });

  it('know which subtype belongs to which type', () => {
    expect(isSubtypeOf('Drugs', 'Trafficking')).toBe(true);
    expect(isSubtypeOf('Fraud', 'Trafficking')).toBe(false);
  });
});

describe('countries', () => {
  it('are about 195 sovereign countries plus Bermuda, alphabetical and unique', () => {
    expect(COUNTRIES.length).toBeGreaterThanOrEqual(190);
    expect(COUNTRIES.length).toBeLessThanOrEqual(200);
    expect(new Set(COUNTRIES).size).toBe(COUNTRIES.length);
    expect([...COUNTRIES].sort((a, b) => a.localeCompare(b, 'en'))).toEqual([...COUNTRIES]);
    expect(COUNTRIES).toContain(DEFAULT_COUNTRY);
    expect(DEFAULT_COUNTRY).toBe('Bermuda');
  });

  it('each resolve to an ISO alpha-3 code and a numeric code', () => {
    for (const name of COUNTRIES) {
      const code = countryToAlpha3(name);
      expect(code, name).toMatch(/^[A-Z]{3}$/);
      expect(ALPHA3_NUMERIC[code as string], name).toMatch(/^\d{3}$/);
    }
    expect(new Set(COUNTRIES.map(countryToAlpha3)).size).toBe(COUNTRIES.length);
  });

  it('the lookup knows about 230 or more names, including common alternatives', () => {
    expect(Object.keys(COUNTRY_ALPHA3).length).toBeGreaterThanOrEqual(230);
    expect(countryToAlpha3('United States of America')).toBe('USA');
    expect(countryToAlpha3('USA')).toBe('USA');
    expect(countryToAlpha3('UK')).toBe('GBR');
    expect(countryToAlpha3('cote d ivoire')).toBe('CIV');
    expect(countryToAlpha3('Vatican City')).toBe('VAT');
    expect(countryToAlpha3('Atlantis')).toBeUndefined();
  });

  it('the generated lookup is up to date with i18n-iso-countries', () => {
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(renderCountryCodes());
  });
});

describe('sources', () => {
  it('include the NAMLC referral source exactly once', () => {
    expect(NAMLC_REFERRAL_SOURCE).toBe('Referral from NAMLC organization');
    expect(DEFAULT_SOURCE_OPTIONS.filter((s) => s === NAMLC_REFERRAL_SOURCE)).toHaveLength(1);
  });
});
