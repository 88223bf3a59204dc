import { z } from 'zod';
import { DateOnlySchema, latestAllowedDate, MoneySchema, ObjectIdSchema } from './common.ts';
import { COUNTRIES, DEFAULT_COUNTRY } from './countries.ts';
import { CrimeTypeSchema, isSubtypeOf } from './crime-types.ts';
import { NamlcOrganizationSchema, OrganizationSchema } from './organizations.ts';

/** Optional text fields arrive from forms as "" when left empty; that means "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optionalText = (max: number, label: string) =>
  z.preprocess(blankToUndefined, z.string().trim().max(max, `${label} must be at most ${max} characters`).nullish());
const requiredText = (max: number, label: string) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} must be at most ${max} characters`);

/**
 * The fields a user enters for a record (SPEC §3 "Record creation input"): everything except id,
 * timestamps, organization and createdById, which the records service sets from the caller's
 * identity. Unknown fields are refused. Country options and source options are lists the ADMIN
 * edits, so the records service checks membership; this schema checks everything static.
 */
export const RecordFieldsSchema = z.strictObject({
  incidentNumber: requiredText(64, 'Incident number'),
  suspectName: requiredText(200, 'Suspect name'),
  suspectDob: DateOnlySchema,
  incidentDate: DateOnlySchema,
  caseAmount: MoneySchema,
  seizedAmount: MoneySchema.default('0.00'),
  confiscatedAmount: MoneySchema.default('0.00'),
  sourceOfRecord: requiredText(200, 'Source of record'),
  namlcOrganization: z.preprocess(blankToUndefined, NamlcOrganizationSchema.nullish()),
  internationalNexus: z.boolean({ error: 'International nexus must be true or false' }),
  cyberAssisted: z.boolean({ error: 'Cyber-assisted must be true or false' }).default(false),
  country: z.preprocess(blankToUndefined, z.string().trim().max(100).nullish()),
  crimeType: z.preprocess(blankToUndefined, CrimeTypeSchema.nullish()),
  crimeSubtype: optionalText(200, 'Crime subtype'),
  additionalInfo: optionalText(10_000, 'Additional information'),
});

/** Rules that relate fields to each other, and the defaults that depend on other fields. */
export const RecordInputSchema = RecordFieldsSchema.superRefine((r, ctx) => {
  const latest = latestAllowedDate();
  if (r.suspectDob > latest)
    ctx.addIssue({ code: 'custom', path: ['suspectDob'], message: 'must not be in the future' });
  if (r.incidentDate > latest) {
    ctx.addIssue({ code: 'custom', path: ['incidentDate'], message: 'must not be in the future' });
  }
  if (r.suspectDob >= r.incidentDate) {
    ctx.addIssue({ code: 'custom', path: ['suspectDob'], message: 'must be before the incident date' });
  }
  if (r.crimeSubtype && !r.crimeType) {
    ctx.addIssue({ code: 'custom', path: ['crimeSubtype'], message: 'needs a crime type' });
  } else if (r.crimeSubtype && r.crimeType && !isSubtypeOf(r.crimeType, r.crimeSubtype)) {
    ctx.addIssue({
      code: 'custom',
      path: ['crimeSubtype'],
      message: `"${r.crimeSubtype}" is not a subtype of ${r.crimeType}`,
    });
  }
  if (!r.internationalNexus && r.country && r.country !== DEFAULT_COUNTRY) {
    ctx.addIssue({
      code: 'custom',
      path: ['country'],
      message: `must be ${DEFAULT_COUNTRY} when there is no international nexus`,
    });
  }
}).transform((r) => ({ ...r, country: r.country ?? DEFAULT_COUNTRY }));
export type RecordInput = z.output<typeof RecordInputSchema>;

/** A record as services answer with it (SPEC §3). Amounts are decimal strings, dates YYYY-MM-DD. */
export const RecordSchema = z.object({
  id: ObjectIdSchema,
  incidentNumber: z.string(),
  suspectName: z.string(),
  suspectDob: z.string(),
  incidentDate: z.string(),
  caseAmount: z.string(),
  seizedAmount: z.string(),
  confiscatedAmount: z.string(),
  sourceOfRecord: z.string(),
  namlcOrganization: NamlcOrganizationSchema.nullable(),
  internationalNexus: z.boolean(),
  cyberAssisted: z.boolean(),
  country: z.string(),
  crimeType: CrimeTypeSchema.nullable(),
  crimeSubtype: z.string().nullable(),
  additionalInfo: z.string().nullable(),
  organization: OrganizationSchema,
  createdById: ObjectIdSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  deleted: z.boolean(),
  deletedAt: z.string().nullable(),
  deletedById: ObjectIdSchema.nullable(),
});
export type CaseRecord = z.infer<typeof RecordSchema>;

/** Whether a country name is one of the fixed options of the create and search forms. */
export function isKnownCountry(name: string): boolean {
  return (COUNTRIES as readonly string[]).includes(name);
}
