import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FONT_SIZE_KEY, FontSizeProvider, storedFontSize, useFontSize } from './font-size.tsx';
import { formatDate, formatDateTime, formatMoment, formatUsd, sumAmounts } from './format.ts';
import { organizationColor, organizationName } from './organizations.ts';

describe('formatting', () => {
  it('writes amounts in US dollars, en-US', () => {
    expect(formatUsd('1234.5')).toBe('$1,234.50');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd('12,000')).toBe('$12,000.00');
    expect(formatUsd('')).toBe('$0.00');
    expect(formatUsd('abc')).toBe('$0.00');
    expect(formatUsd(null)).toBe('$0.00');
  });

  it('writes calendar dates as that day, MM/DD/YYYY, and a missing moment as the fallback', () => {
    expect(formatDate('1980-05-01')).toBe('05/01/1980');
    expect(formatDate('0999-12-31')).toBe('12/31/0999');
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatDate(null)).toBe('');
    expect(formatMoment(null, 'N/A')).toBe('N/A');
    expect(formatMoment('garbage', 'N/A')).toBe('N/A');
    expect(formatMoment('2026-11-23T12:00:00.000Z')).toMatch(/^11\/2[34]\/2026$/);
    expect(formatDateTime('2026-11-23T12:00:00.000Z')).toMatch(/^11\/2[34]\/2026, \d{1,2}:\d{2}\s(AM|PM)$/);
    expect(formatDateTime(null, 'N/A')).toBe('N/A');
    expect(formatDateTime('garbage')).toBe('');
  });

  it('adds amounts exactly, in cents', () => {
    expect(sumAmounts('0.1', '0.2', '0')).toBe('0.30');
    expect(sumAmounts('99999999999.99', '0.01')).toBe('100000000000.00');
    expect(sumAmounts('12.5', null, undefined, '')).toBe('12.50');
  });

  it('names organizations and colours their badges (unknown: gray)', () => {
    expect(['BPS', 'FIA', 'CUS', 'ADMIN', 'XYZ', undefined].map(organizationColor)).toEqual([
      'blue',
      'green',
      'yellow',
      'purple',
      'default',
      'default',
    ]);
    expect(organizationName('CUS')).toBe('Customs');
    expect(organizationName('ADMIN')).toBe('System Administration');
  });
});

function Picker() {
  const { fontSize, px, setFontSize } = useFontSize();
  return (
    <button type="button" onClick={() => setFontSize('large')}>
      {fontSize} {px}
    </button>
  );
}

describe('font size', () => {
  it('is medium unless a known size is stored', () => {
    expect(storedFontSize()).toBe('medium');
    localStorage.setItem(FONT_SIZE_KEY, 'huge');
    expect(storedFontSize()).toBe('medium');
    localStorage.setItem(FONT_SIZE_KEY, 'extra-large');
    expect(storedFontSize()).toBe('extra-large');
  });

  it('applies the size to the whole document at once and stores it', async () => {
    render(
      <FontSizeProvider>
        <Picker />
      </FontSizeProvider>,
    );
    expect(screen.getByRole('button')).toHaveTextContent('medium 16');
    expect(document.documentElement.style.fontSize).toBe('16px');
    await act(() => userEvent.setup().click(screen.getByRole('button')));
    expect(screen.getByRole('button')).toHaveTextContent('large 18');
    expect(document.documentElement.style.fontSize).toBe('18px');
    expect(localStorage.getItem(FONT_SIZE_KEY)).toBe('large');
  });
});
