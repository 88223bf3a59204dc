import { ORGANIZATION_NAMES, type Organization } from '@nrad/contracts';

/** Badge colours of SPEC §2: BPS blue, FIA green, CUS yellow, ADMIN purple, anything else gray. */
export const ORGANIZATION_COLORS: Readonly<Record<Organization, string>> = {
  BPS: 'blue',
  FIA: 'green',
  CUS: 'yellow',
  ADMIN: 'purple',
};

/**
 * The badges' text on their background, each at least 4.5:1 (WCAG AA for text). antd's own presets
 * fall short for two: its yellow tag is #d4b106 on #feffe6 (2.0:1) and its green #389e0d on #f6ffed
 * (3.4:1). CUS: antd's darkest yellow on its yellow-4 (7.7:1); FIA: antd's green-8 (5.4:1); BPS and
 * ADMIN keep antd's colours (5.5:1, 8.9:1). Anything else is antd's default tag (dark gray on light gray).
 */
export const ORGANIZATION_BADGE_COLORS: Readonly<Record<Organization, { color: string; background: string }>> = {
  BPS: { color: '#0958d9', background: '#e6f4ff' },
  FIA: { color: '#237804', background: '#f6ffed' },
  CUS: { color: '#614700', background: '#fff566' },
  ADMIN: { color: '#531dab', background: '#f9f0ff' },
};

export function organizationColor(code: string | null | undefined): string {
  return ORGANIZATION_COLORS[code as Organization] ?? 'default';
}

/** The badge's text and background colours for an organization (none for an unknown one: antd's gray). */
export function organizationBadgeStyle(
  code: string | null | undefined,
): { color: string; background: string } | undefined {
  return ORGANIZATION_BADGE_COLORS[code as Organization];
}

export function organizationName(code: string | null | undefined): string {
  return ORGANIZATION_NAMES[code as Organization] ?? code ?? '';
}
