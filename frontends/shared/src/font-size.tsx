import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';

/** SPEC §2 Settings / §9: the four sizes, kept in localStorage under `fontSize`, default medium. */
export const FONT_SIZES = [
  { value: 'small', label: 'Small (14px)', px: 14 },
  { value: 'medium', label: 'Medium (16px)', px: 16 },
  { value: 'large', label: 'Large (18px)', px: 18 },
  { value: 'extra-large', label: 'Extra Large (20px)', px: 20 },
] as const;
export type FontSize = (typeof FONT_SIZES)[number]['value'];
export const FONT_SIZE_KEY = 'fontSize';
export const DEFAULT_FONT_SIZE: FontSize = 'medium';

const isFontSize = (v: unknown): v is FontSize => FONT_SIZES.some((s) => s.value === v);

/** The stored size (an unknown or missing value, or storage that cannot be read, is medium). */
export function storedFontSize(): FontSize {
  try {
    const v = localStorage.getItem(FONT_SIZE_KEY);
    return isFontSize(v) ? v : DEFAULT_FONT_SIZE;
  } catch {
    return DEFAULT_FONT_SIZE;
  }
}

export function fontSizePx(size: FontSize): number {
  return FONT_SIZES.find((s) => s.value === size)!.px;
}

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

/**
 * Whether the user asked their system for less motion (WCAG 2.3.3; "Reduce motion" in macOS, iOS
 * and Windows, Chromium's emulation): the app's animations are then off (antd's `motion` token),
 * and back on when the setting changes.
 */
export function usePrefersReducedMotion(): boolean {
  const [reduced, setReduced] = useState(() => typeof matchMedia === 'function' && matchMedia(REDUCED_MOTION).matches);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const list = matchMedia(REDUCED_MOTION);
    const changed = () => setReduced(list.matches);
    list.addEventListener('change', changed);
    return () => list.removeEventListener('change', changed);
  }, []);
  return reduced;
}

/**
 * antd's theme for a font size: the text size and, in proportion, the height of inputs and
 * buttons (32 px at the medium 16 px), so larger text still fits its controls.
 */
export function themeTokens(px: number): { fontSize: number; controlHeight: number } {
  return { fontSize: px, controlHeight: Math.round(px * 2) };
}

interface FontSizeState {
  fontSize: FontSize;
  px: number;
  setFontSize(size: FontSize): void;
}

const FontSizeContext = createContext<FontSizeState | null>(null);

/** Holds the app's font size, applies it to the document at once and remembers it. */
export function FontSizeProvider({ children }: { children: ReactNode }) {
  const [fontSize, setState] = useState<FontSize>(storedFontSize);
  const px = fontSizePx(fontSize);
  useEffect(() => {
    document.documentElement.style.fontSize = `${px}px`;
  }, [px]);
  const setFontSize = useCallback((size: FontSize) => {
    if (!isFontSize(size)) return;
    setState(size);
    try {
      localStorage.setItem(FONT_SIZE_KEY, size);
    } catch {
      // Private browsing without storage: the size still applies until the page is left.
    }
  }, []);
  const value = useMemo(() => ({ fontSize, px, setFontSize }), [fontSize, px, setFontSize]);
  return <FontSizeContext.Provider value={value}>{children}</FontSizeContext.Provider>;
}

export function useFontSize(): FontSizeState {
  const state = useContext(FontSizeContext);
  if (!state) throw new Error('useFontSize outside FontSizeProvider');
  return state;
}
