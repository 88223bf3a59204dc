import { z } from 'zod';

/** Every organization a user can belong to; the organization acts as the role (SPEC §6). */
export const ORGANIZATION_CODES = ['BPS', 'FIA', 'CUS', 'ADMIN'] as const;
export const OrganizationSchema = z.enum(ORGANIZATION_CODES, {
  error: 'Organization must be one of BPS, FIA, CUS, ADMIN',
});
export type Organization = z.infer<typeof OrganizationSchema>;

/** The agencies that record incidents; ADMIN oversees them and cannot be registered. */
export const AGENCY_CODES = ['BPS', 'FIA', 'CUS'] as const;
export const AgencySchema = z.enum(AGENCY_CODES, {
  error: 'Organization must be one of BPS, FIA, CUS',
});
export type Agency = z.infer<typeof AgencySchema>;

/** Display names (SPEC §1). */
export const ORGANIZATION_NAMES: Readonly<Record<Organization, string>> = {
  BPS: 'Bermuda Police Service',
  FIA: 'Financial Intelligence Agency',
  CUS: 'Customs',
  ADMIN: 'System Administration',
};

/** The National Anti-Money Laundering Committee organizations that can link records (SPEC §2, §6). */
export const NAMLC_ORGANIZATIONS = ['Financial Intelligence Agency', 'Bermuda Police Service', 'Customs'] as const;
export const NamlcOrganizationSchema = z.enum(NAMLC_ORGANIZATIONS, {
  error: `NAMLC organization must be one of ${NAMLC_ORGANIZATIONS.join(', ')}`,
});
export type NamlcOrganization = z.infer<typeof NamlcOrganizationSchema>;

/** The agency behind each NAMLC organization name. */
export const NAMLC_AGENCY: Readonly<Record<NamlcOrganization, Agency>> = {
  'Financial Intelligence Agency': 'FIA',
  'Bermuda Police Service': 'BPS',
  Customs: 'CUS',
};
