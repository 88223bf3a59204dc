import { MoneySchema } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import {
  amountOf,
  booleanOf,
  CELL_MESSAGES,
  type CellOptions,
  cellText,
  convertCell,
  dateOf,
  isEmptyCell,
  numberText,
} from './cells.ts';

const options: CellOptions = { date1904: false, maxCellChars: 100 };

describe('numbers as text', () => {
  it.each([
    [12345, '12345'],
    [12345.0, '12345'],
    [0.1 + 0.2, '0.3'],
    [1e21, '1000000000000000000000'],
    [-42.5, '-42.5'],
    [1e-7, '0.0000001'],
    [123456789012345, '123456789012345'],
  ])('%s → %s', (n, text) => {
    expect(numberText(n)).toBe(text);
  });

  it('writes booleans as Excel shows them', () => {
    expect(cellText(true)).toBe('TRUE');
    expect(cellText(false)).toBe('FALSE');
    expect(cellText('  as typed ')).toBe('  as typed ');
  });
});

describe('dates', () => {
  it('reads Excel serial numbers in the 1900 and the 1904 date systems, dropping a time of day', () => {
    expect(dateOf(43832, false)).toEqual({ value: '2020-01-02' });
    expect(dateOf(43832, true)).toEqual({ value: '2024-01-03' });
    expect(dateOf(43832.75, false)).toEqual({ value: '2020-01-02' });
    expect(dateOf(1, false)).toEqual({ value: '1900-01-01' });
    expect(dateOf(2_958_465, false)).toEqual({ value: '9999-12-31' });
  });

  it('refuses serials that are no date', () => {
    for (const serial of [0, -5, 0.5, 2_958_466, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(dateOf(serial, false)).toEqual({ error: CELL_MESSAGES.date });
    }
  });

  it('reads text YYYY-MM-DD, with or without leading zeros or a time after it', () => {
    expect(dateOf('2024-03-05', false)).toEqual({ value: '2024-03-05' });
    expect(dateOf(' 2024-3-5 ', false)).toEqual({ value: '2024-03-05' });
    expect(dateOf('2024-03-05 14:30', false)).toEqual({ value: '2024-03-05' });
    expect(dateOf('2024-03-05T14:30:00Z', false)).toEqual({ value: '2024-03-05' });
  });

  it('reads DD/MM/YYYY only when it cannot be month first', () => {
    expect(dateOf('25/03/2024', false)).toEqual({ value: '2024-03-25' });
    expect(dateOf('25.3.2024', false)).toEqual({ value: '2024-03-25' });
    expect(dateOf('07/07/2024', false)).toEqual({ value: '2024-07-07' });
    expect(dateOf('05/03/2024', false)).toEqual({ error: 'ambiguous date: write it as YYYY-MM-DD' });
    expect(dateOf('12/01/2024', false)).toEqual({ error: CELL_MESSAGES.ambiguousDate });
    // Month first (US) is not guessed either.
    expect(dateOf('03/25/2024', false)).toEqual({ error: CELL_MESSAGES.date });
  });

  it('refuses anything else', () => {
    for (const value of ['yesterday', '2024/03/05', '5 March 2024', '00/05/2024', '', true]) {
      expect(dateOf(value, false)).toEqual({ error: 'must be a date (YYYY-MM-DD)' });
    }
  });
});

describe('amounts', () => {
  it('takes numbers with at most 2 decimals as decimal text the record schema accepts', () => {
    expect(amountOf(12500.5)).toEqual({ value: '12500.5' });
    expect(amountOf(0)).toEqual({ value: '0' });
    expect(amountOf(0.1 + 0.2)).toEqual({ value: '0.3' });
    const amount = amountOf(12500.5);
    expect('value' in amount && MoneySchema.parse(amount.value)).toBe('12500.50');
  });

  it('takes text with a leading $ and thousands separators', () => {
    expect(amountOf('12,500.50')).toEqual({ value: '12500.50' });
    expect(amountOf(' $1,234,567 ')).toEqual({ value: '1234567' });
    expect(amountOf('$ 99.9')).toEqual({ value: '99.9' });
    expect(amountOf('750')).toEqual({ value: '750' });
  });

  it('refuses more than 2 decimals', () => {
    expect(amountOf(12.345)).toEqual({ error: 'must have at most 2 decimals' });
    expect(amountOf('1,000.125')).toEqual({ error: CELL_MESSAGES.decimals });
  });

  it('refuses what is not an amount, and leaves sign and size to the record schema', () => {
    for (const value of ['lots', '12,50', '1,2345', '12.', '.5', '1 000', true]) {
      expect(amountOf(value)).toEqual({ error: 'must be an amount such as 1234.50' });
    }
    expect(amountOf('-5')).toEqual({ value: '-5' });
    expect(MoneySchema.safeParse('-5').success).toBe(false);
  });
});

describe('Yes/No', () => {
  it.each([
    ['Yes', true],
    ['y', true],
    ['TRUE', true],
    ['1', true],
    [1, true],
    [true, true],
    ['No', false],
    [' n ', false],
    ['False', false],
    ['0', false],
    [0, false],
    [false, false],
  ])('%s → %s', (value, expected) => {
    expect(booleanOf(value)).toEqual({ value: expected });
  });

  it('refuses anything else', () => {
    for (const value of ['maybe', '2', 2, 'yes please'])
      expect(booleanOf(value)).toEqual({ error: 'must be Yes or No' });
  });
});

describe('one cell', () => {
  it('refuses a formula, whatever result Excel saved with it', () => {
    expect(convertCell({ t: 'n', v: 42, f: 'B2*2' }, 'amount', options)).toEqual({
      error: 'formulas are not accepted; paste values',
    });
    expect(convertCell({ t: 's', v: 'BPS-1', f: 'CONCAT("BPS-",1)' }, 'text', options)).toEqual({
      error: CELL_MESSAGES.formula,
    });
    expect(convertCell({ t: 'n', v: 1, F: 'A1:A3' }, 'amount', options)).toEqual({ error: CELL_MESSAGES.formula });
  });

  it('keeps text starting with =, +, - or @ as typed', () => {
    for (const typed of ["=cmd|' /C calc'!A0", '+1 441 555 0100', '-not a number', '@SUM(A1:A9)']) {
      expect(convertCell({ t: 's', v: typed }, 'text', options)).toEqual({ value: typed });
    }
  });

  it('refuses a cell longer than the limit without keeping it', () => {
    expect(convertCell({ t: 's', v: 'x'.repeat(101) }, 'text', options)).toEqual({
      error: 'the cell is longer than 100 characters',
    });
    expect(convertCell({ t: 's', v: 'x'.repeat(100) }, 'text', options)).toEqual({ value: 'x'.repeat(100) });
    expect(CELL_MESSAGES.tooLong(10_000)).toBe('the cell is longer than 10,000 characters');
  });

  it('names the error an error cell shows', () => {
    expect(convertCell({ t: 'e', v: 0x07 }, 'amount', options)).toEqual({
      error: 'the cell shows an error (#DIV/0!); enter a value',
    });
    expect(convertCell({ t: 'e', v: 0x2a }, 'text', options)).toEqual({ error: CELL_MESSAGES.errorValue('#N/A') });
  });

  it('writes a number in a text column without decimals noise', () => {
    expect(convertCell({ t: 'n', v: 12345 }, 'text', options)).toEqual({ value: '12345' });
  });

  it('tells empty cells: nothing, or spaces only', () => {
    expect(isEmptyCell(undefined)).toBe(true);
    expect(isEmptyCell({ t: 'z' })).toBe(true);
    expect(isEmptyCell({ t: 's', v: '  \t' })).toBe(true);
    expect(isEmptyCell({ t: 's', v: '', f: '""' })).toBe(true);
    expect(isEmptyCell({ t: 'n', v: 0 })).toBe(false);
    expect(isEmptyCell({ t: 'b', v: false })).toBe(false);
  });
});
