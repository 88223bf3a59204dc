import { describe, expect, it } from 'vitest';
import {
  detectDayMonthOrder,
  foldName,
  isPlaceholderName,
  makeDate,
  parseDate,
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
