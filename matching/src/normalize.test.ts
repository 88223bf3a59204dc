import { describe, expect, it } from 'vitest';
import {
  detectDayMonthOrder,
  foldName,
  isPlaceholderName,
  makeDate,
  parseDate,
  parseDobDigits,
  prepareAmount,
  prepareName,
} from './normalize.ts';

describe('foldName', () => {
  it('folds case, accents, other scripts and punctuation', () => {
    expect(foldName('José  ÁLVAREZ-Núñez')).toBe('jose alvareznunez');
    expect(foldName("O'Brien, Seán")).toBe('obrien sean');
    expect(foldName('Łukasz Żółć')).toBe('lukasz zolc');
    expect(foldName('Straße')).toBe('strasse');
    expect(foldName('Владимир')).toBe('vladimir');
    expect(foldName('  J.R.   Smith ')).toBe('j r smith');
  });
});

describe('placeholder names', () => {
  it.each(['UNKNOWN', 'N/A', 'n.a.', 'Not Known', '---', '???', 'XXX', 'none', 'John Doe', '', '   ', '12345'])(
    '%j is no name',
    (text) => {
      expect(isPlaceholderName(foldName(text))).toBe(true);
      expect(prepareName(text).tokens).toEqual([]);
      expect(prepareName(text).initials).toEqual([]);
    },
  );

  it('drops placeholder words, titles and particles inside a name', () => {
    expect(prepareName('Mr John UNKNOWN').tokens).toEqual(['john']);
    expect(prepareName('FNU Smith').tokens).toEqual(['smith']);
    expect(prepareName('Maria de la Cruz').tokens).toEqual(['maria', 'cruz']);
    expect(prepareName('Van').tokens).toEqual(['van']);
  });

  it('keeps initials apart from words', () => {
    expect(prepareName('J. R. Smith')).toMatchObject({ tokens: ['smith'], initials: ['j', 'r'] });
  });

  it('joins given name and surname parts, skipping placeholder parts', () => {
    expect(prepareName('Anna', 'Berg').tokens).toEqual(['anna', 'berg']);
    expect(prepareName('N/A', 'Berg').tokens).toEqual(['berg']);
    expect(prepareName(undefined, null).tokens).toEqual([]);
  });
});

describe('parseDate', () => {
  it('reads ISO, compact and slash dates', () => {
    expect(parseDate('1980-03-04')?.digits).toBe('19800304');
    expect(parseDate('1980-03-04T10:00:00Z')?.digits).toBe('19800304');
    expect(parseDate('19800304')?.digits).toBe('19800304');
    expect(parseDate('04/03/1980')?.digits).toBe('19800304');
    expect(parseDate('03/04/1980', 'mdy')?.digits).toBe('19800304');
    expect(parseDate('4.3.1980')?.digits).toBe('19800304');
    expect(parseDate('1980/3/4')?.digits).toBe('19800304');
    expect(parseDate('1980.03.04 00:00:00')?.digits).toBe('19800304');
    expect(parseDate('04/03/1980 12:30')?.digits).toBe('19800304');
    expect(parseDate('1980-03/04')).toBeUndefined(); // mixed separators
  });

  it('tells day-first from month-first columns by a part over 12', () => {
    expect(detectDayMonthOrder(['03/04/1980', '12/25/1990', '', null])).toBe('mdy');
    expect(detectDayMonthOrder(['03/04/1980', '25/12/1990'])).toBe('dmy');
    expect(detectDayMonthOrder(['03/04/1980', '01/02/1990'])).toBe('dmy'); // undecided: the default
    expect(detectDayMonthOrder(['25/12/1990', '12/25/1990'])).toBe('dmy'); // contradictory: the default
    expect(detectDayMonthOrder(['1980-03-04', '19900101'])).toBeUndefined();
  });

  it.each([
    '',
    'unknown',
    '1980-02-30',
    '19571233',
    '1980-13-01',
    '0001-01-01',
    '0999-06-01',
    '1800-01-01',
    '2999-01-01',
    '1900-01-01',
    '1970-01-01',
    '99999999',
  ])('%j is no date', (text) => {
    expect(parseDate(text)).toBeUndefined();
  });

  it('builds dates from parts with the same checks', () => {
    expect(makeDate(1980, 3, 4)?.digits).toBe('19800304');
    expect(makeDate(1980, 2, 30)).toBeUndefined();
    expect(makeDate(Number.NaN, 1, 1)).toBeUndefined();
  });

  it('counts days for differences', () => {
    expect(parseDate('2024-03-01')!.days - parseDate('2024-02-28')!.days).toBe(2);
  });
});

describe('parseDobDigits', () => {
  it('reads a real date as parseDate does', () => {
    expect(parseDobDigits('1998-09-05')).toEqual(parseDate('1998-09-05'));
  });

  it.each([
    ['1975-13-42', '19751342'], // month 13, day 42
    ['9185-06-15', '91850615'], // year's digits swapped (1985)
    ['0998-09-05', '09980905'], // year's first digit mistyped (1998): its 0 kept
    ['0205-03-04', '02050304'], // year's digits swapped (2005)
    ['2999-01-01', '29990101'], // year after MAX_YEAR, one digit from 1999
    ['1998-00-03', '19980003'], // month 00 (10, 01–09)
    ['1998-05-00', '19980500'], // day 00
    ['19660091', '19660091'], // month and day digits swapped across (1966-09-01)
  ])('keeps %j, impossible as written, digits as typed', (text, digits) => {
    expect(parseDobDigits(text)).toMatchObject({ digits, impossible: true });
    expect(parseDobDigits(text)!.days).toBeNaN();
  });

  it.each([
    '',
    'unknown',
    '1900-01-01', // placeholders
    '0001-01-01',
    '9999-12-31',
    '0000-00-00', // one slip of no real date
    '1998-00-00',
    '9999-99-99',
    '0123-45-67',
    '1900-00-01', // one slip of a placeholder (1900-01-01)
    '0000-01-01', // one slip of 2000-01-01
  ])('%j is still no date of birth', (text) => {
    expect(parseDobDigits(text)).toBeUndefined();
  });
});

describe('prepareAmount', () => {
  it('keeps positive amounts and drops zero, negatives and junk', () => {
    expect(prepareAmount(1234.5)).toBe(1234.5);
    expect(prepareAmount('1,234.50')).toBe(1234.5);
    expect(prepareAmount(0)).toBeUndefined();
    expect(prepareAmount('0.00')).toBeUndefined();
    expect(prepareAmount(-5)).toBeUndefined();
    expect(prepareAmount('abc')).toBeUndefined();
    expect(prepareAmount(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(prepareAmount(null)).toBeUndefined();
  });
});
