import { ORGANIZATION_CODES } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import { AA_GRAPHIC, AA_TEXT, contrastRatio } from '../../shared/test/contrast.ts';
import { JOURNEY_CIRCLE_COLORS, journeyCircleColors, UNKNOWN_CIRCLE_COLORS } from './colors.ts';

const CARD = '#ffffff';

describe('the Record Journey’s circles', () => {
  it('write the code at 4.5:1 on the fill and stand out from the white card at 3:1', () => {
    for (const code of [...ORGANIZATION_CODES, 'XYZ']) {
      const { fill, edge, text } = journeyCircleColors(code);
      expect(contrastRatio(text, fill), `${code} code on its circle`).toBeGreaterThanOrEqual(AA_TEXT);
      expect(contrastRatio(edge, CARD), `${code} circle on the card`).toBeGreaterThanOrEqual(AA_GRAPHIC);
    }
    expect(journeyCircleColors('XYZ')).toBe(UNKNOWN_CIRCLE_COLORS);
    // White on antd's yellow (the CUS circle before) was 2.1:1; the yellow against white is 1.4:1, hence the edge.
    expect(contrastRatio('#ffffff', '#d4b106')).toBeLessThan(AA_TEXT);
    expect(contrastRatio(JOURNEY_CIRCLE_COLORS.CUS?.fill ?? '', CARD)).toBeLessThan(AA_GRAPHIC);
  });

  it('keep the badge colours: BPS blue, FIA green, CUS yellow, ADMIN purple, unknown gray', () => {
    const rgb = (code: string) => {
      const { fill } = journeyCircleColors(code);
      const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => Number.parseInt(fill.slice(i, i + 2), 16));
      return { r, g, b };
    };
    const blue = rgb('BPS');
    expect(blue.b).toBeGreaterThan(blue.r + 100);
    const green = rgb('FIA');
    expect(green.g).toBeGreaterThan(Math.max(green.r, green.b) + 60);
    const yellow = rgb('CUS');
    expect(Math.min(yellow.r, yellow.g)).toBeGreaterThan(200);
    expect(yellow.b).toBeLessThan(60);
    const purple = rgb('ADMIN');
    expect(Math.min(purple.r, purple.b)).toBeGreaterThan(purple.g + 50);
    const gray = rgb('XYZ');
    expect(new Set([gray.r, gray.g, gray.b]).size).toBe(1);
  });
});
