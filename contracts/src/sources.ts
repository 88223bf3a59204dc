/** The source value that opens the NAMLC match check on the Add Record form (SPEC §9). */
export const NAMLC_REFERRAL_SOURCE = 'Referral from NAMLC organization';

/** Source of Record options a fresh installation starts with; ADMIN edits the list (SPEC §2). */
export const DEFAULT_SOURCE_OPTIONS = [
  'Police Investigation',
  'Suspicious Activity Report (SAR)',
  'Financial Intelligence Analysis',
  'Customs Inspection',
  'Customs Declaration',
  'Cash Declaration at Border',
  'Regulatory Referral',
  'Public Complaint',
  'Informant / Tip-off',
  'Open Source Intelligence',
  'International Request (Mutual Legal Assistance)',
  NAMLC_REFERRAL_SOURCE,
  'Other',
] as const;
