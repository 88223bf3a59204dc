/**
 * WCAG 2 contrast (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio) of two opaque colours written
 * #rrggbb or #rgb: (L1 + 0.05) / (L2 + 0.05), the lighter colour's relative luminance over the darker's.
 * AA asks 4.5:1 for text and 3:1 for the parts of a graphic needed to see it.
 */
export function relativeLuminance(hex: string): number {
  const digits = hex.replace(/^#/, '');
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  if (!/^[0-9a-f]{6}$/i.test(full)) throw new Error(`not an opaque #rrggbb colour: ${hex}`);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

export const AA_TEXT = 4.5;
export const AA_GRAPHIC = 3;
