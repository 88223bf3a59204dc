import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FONT_SIZE_KEY, FontSizeProvider, storedFontSize, useFontSize } from './font-size.tsx';
import { formatUsd } from './format.ts';
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
