import { ORGANIZATION_CODES } from '@nrad/contracts';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AA_TEXT, contrastRatio } from '../test/contrast.ts';
import { OrganizationBadge } from './organization-badge.tsx';
import { ORGANIZATION_BADGE_COLORS } from './organizations.ts';

/** Hue in degrees, saturation and lightness (0–1) of #rrggbb. */
function hsl(hex: string) {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  const h =
    d === 0
      ? 0
      : max === r
        ? 60 * (((g - b) / d + 6) % 6)
        : max === g
          ? 60 * ((b - r) / d + 2)
          : 60 * ((r - g) / d + 4);
  return { h, s, l };
}

describe('contrast (WCAG 2 relative luminance)', () => {
  it('measures as WCAG does', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 6);
    expect(contrastRatio('#ffffff', '#000')).toBeCloseTo(21, 6);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#1677ff', '#1677ff')).toBe(1);
  });
});

describe('the organization badge', () => {
  it('writes every organization’s code at 4.5:1 or more (antd’s yellow tag was 2.0:1, its green 3.4:1)', () => {
    expect(contrastRatio('#d4b106', '#feffe6')).toBeLessThan(AA_TEXT);
    expect(contrastRatio('#389e0d', '#f6ffed')).toBeLessThan(AA_TEXT);
    for (const code of ORGANIZATION_CODES) {
      const { color, background } = ORGANIZATION_BADGE_COLORS[code];
      expect(contrastRatio(color, background), code).toBeGreaterThanOrEqual(AA_TEXT);
    }
    expect(contrastRatio(ORGANIZATION_BADGE_COLORS.CUS.color, ORGANIZATION_BADGE_COLORS.CUS.background)).toBeCloseTo(
      7.68,
      2,
    );
  });

  it('keeps CUS yellow: a saturated yellow background, dark yellow-brown text', () => {
    const background = hsl(ORGANIZATION_BADGE_COLORS.CUS.background);
    expect(background.h).toBeGreaterThanOrEqual(45);
    expect(background.h).toBeLessThanOrEqual(65);
    expect(background.s).toBeGreaterThan(0.9);
    expect(background.l).toBeGreaterThan(0.6);
    const text = hsl(ORGANIZATION_BADGE_COLORS.CUS.color);
    expect(text.h).toBeGreaterThanOrEqual(35);
    expect(text.h).toBeLessThanOrEqual(60);
    expect(text.l).toBeLessThan(0.25);
  });

  it('is antd’s preset tag of the organization’s colour, painted in those colours, its name on hover; unknown: gray', () => {
    render(
      <>
        <OrganizationBadge code="CUS" data-testid="cus" />
        <OrganizationBadge code="FIA" data-testid="fia" />
        <OrganizationBadge code="XYZ" data-testid="xyz" />
      </>,
    );
    const cus = screen.getByTestId('cus');
    expect(cus).toHaveTextContent('CUS');
    expect(cus).toHaveClass('ant-tag-yellow');
    expect(cus).toHaveAttribute('title', 'Customs');
    expect(cus).toHaveStyle({ color: '#614700', background: '#fff566' });
    expect(screen.getByTestId('fia')).toHaveClass('ant-tag-green');
    expect(screen.getByTestId('fia')).toHaveStyle({ color: '#237804' });
    const unknown = screen.getByTestId('xyz');
    expect(unknown).not.toHaveClass('ant-tag-yellow');
    expect(unknown.style.color).toBe('');
    expect(unknown.style.background).toBe('');
  });
});
