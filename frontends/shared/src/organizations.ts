import { ORGANIZATION_NAMES, type Organization } from '@nrad/contracts';

/** Badge colours of SPEC §2: BPS blue, FIA green, CUS yellow, ADMIN purple, anything else gray. */
export const ORGANIZATION_COLORS: Readonly<Record<Organization, string>> = {
  BPS: 'blue',
  FIA: 'green',
  CUS: 'yellow',
  ADMIN: 'purple',
};

export function organizationColor(code: string | null | undefined): string {
  return ORGANIZATION_COLORS[code as Organization] ?? 'default';
}

export function organizationName(code: string | null | undefined): string {
  return ORGANIZATION_NAMES[code as Organization] ?? code ?? '';
}
