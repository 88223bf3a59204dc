import type { CSSProperties } from 'react';

/**
 * The width of a form or details page: the whole width on a phone, at most 1200 px centred on a
 * wide screen (two columns of fields of about 560 px each, not one input across the window).
 */
export const PAGE_MAX_WIDTH = 1200;
export const pageStyle: Readonly<CSSProperties> = { width: '100%', maxWidth: PAGE_MAX_WIDTH, marginInline: 'auto' };
