/**
 * The columns of a batch upload: the record fields (SPEC §3) a spreadsheet may carry, in the order
 * of the template, with the Add Record form's labels (SPEC §2) as their titles.
 */
import type { RecordFieldsSchema } from '@nrad/contracts';
import type { z } from 'zod';

/** A field of `POST /api/records` (SPEC §3 "Record creation input"). */
export type RecordField = keyof z.input<typeof RecordFieldsSchema>;

/** How a cell of the column becomes the JSON value `POST /api/records` takes. */
export type ColumnKind = 'text' | 'date' | 'amount' | 'boolean';

export interface TemplateColumn {
  field: RecordField;
  /** The header of the column in the template (the form's label). */
  title: string;
  /** Whether a file without this column is refused. */
  required: boolean;
  kind: ColumnKind;
  /** What to write in it, shown as the header cell's comment in the template. */
  note: string;
}

/** Every column, in the template's order. */
export const TEMPLATE_COLUMNS: readonly TemplateColumn[] = [
  {
    field: 'incidentNumber',
    title: 'Incident Number',
    required: true,
    kind: 'text',
    note: 'Required. Unique across all agencies, e.g. BPS-2026-0001.',
  },
  { field: 'suspectName', title: 'Suspect Name', required: true, kind: 'text', note: 'Required.' },
  {
    field: 'suspectDob',
    title: 'Suspect Date of Birth',
    required: true,
    kind: 'date',
    note: 'Required. A date (YYYY-MM-DD), before the incident date.',
  },
  {
    field: 'incidentDate',
    title: 'Incident Date',
    required: true,
    kind: 'date',
    note: 'Required. A date (YYYY-MM-DD), not in the future.',
  },
  {
    field: 'caseAmount',
    title: 'Case Amount',
    required: true,
    kind: 'amount',
    note: 'Required. An amount in USD with at most 2 decimals (0 if none).',
  },
  {
    field: 'seizedAmount',
    title: 'Seized Amount',
    required: false,
    kind: 'amount',
    note: 'Optional, 0 when empty. An amount in USD with at most 2 decimals.',
  },
  {
    field: 'confiscatedAmount',
    title: 'Confiscated Amount',
    required: false,
    kind: 'amount',
    note: 'Optional, 0 when empty. An amount in USD with at most 2 decimals.',
  },
  {
    field: 'sourceOfRecord',
    title: 'Source of Record',
    required: true,
    kind: 'text',
    note: 'Required. One of the sources on the Allowed Values sheet.',
  },
  {
    field: 'namlcOrganization',
    title: 'NAMLC Organization',
    required: false,
    kind: 'text',
    note: 'Optional. For a referral from a NAMLC organization: one of those on the Allowed Values sheet.',
  },
  {
    field: 'internationalNexus',
    title: 'International Nexus',
    required: true,
    kind: 'boolean',
    note: 'Required. Yes or No.',
  },
  {
    field: 'cyberAssisted',
    title: 'Cyber-Assisted',
    required: false,
    kind: 'boolean',
    note: 'Optional, No when empty. Yes or No.',
  },
  {
    field: 'country',
    title: 'Country',
    required: false,
    kind: 'text',
    note: 'Optional, Bermuda when empty; Bermuda when International Nexus is No. One of the countries on the Allowed Values sheet.',
  },
  {
    field: 'crimeType',
    title: 'Crime Type',
    required: false,
    kind: 'text',
    note: 'Optional. One of the crime types on the Allowed Values sheet.',
  },
  {
    field: 'crimeSubtype',
    title: 'Crime Subtype',
    required: false,
    kind: 'text',
    note: 'Optional; needs a crime type. One of its subtypes on the Allowed Values sheet.',
  },
  {
    field: 'additionalInfo',
    title: 'Additional Information',
    required: false,
    kind: 'text',
    note: 'Optional. Up to 10,000 characters.',
  },
];

/** Other headers people write for a column (the Case Information label of the Add Record form, …). */
export const HEADER_ALIASES: Readonly<Partial<Record<RecordField, readonly string[]>>> = {
  incidentNumber: ['Incident #', 'Incident No', 'Incident No.'],
  suspectDob: ['Suspect DOB', 'Date of Birth', 'DOB'],
  sourceOfRecord: ['Source'],
  country: ['Nexus Country'],
  crimeType: ['Crime Type (optional)'],
  additionalInfo: ['Case Information'],
};

/** The sheet of the template that lists allowed values; a reader never takes it for records. */
export const ALLOWED_VALUES_SHEET = 'Allowed Values';
/** The sheet of the template that holds the records. */
export const RECORDS_SHEET = 'Records';
