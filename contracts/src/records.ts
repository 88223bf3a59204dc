import { z } from 'zod';
import { DateOnlySchema, latestAllowedDate, MoneySchema, ObjectIdSchema } from './common.ts';
import { COUNTRIES, DEFAULT_COUNTRY } from './countries.ts';
import { CrimeTypeSchema, isSubtypeOf } from './crime-types.ts';
import { fieldErrors } from './errors.ts';
import { NamlcOrganizationSchema, OrganizationSchema } from './organizations.ts';
import { type SafeTextOptions, safeText } from './text.ts';

/** Optional text fields arrive from forms as "" when left empty; that means "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
/** Text a user types (every text field here): no hidden characters, stored NFC (text.ts). */
const optionalText = (max: number, label: string, options: SafeTextOptions = {}) =>
  z.preprocess(
    blankToUndefined,
    safeText(z.string().trim().max(max, `${label} must be at most ${max} characters`), { label, ...options }).nullish(),
  );
const requiredText = (max: number, label: string) =>
  safeText(
    z
      .string({ error: `${label} is required` })
      .trim()
      .min(1, `${label} is required`)
      .max(max, `${label} must be at most ${max} characters`),
    { label },
  );

/**
 * The fields a user enters for a record (SPEC §3 "Record creation input"): everything except id,
 * timestamps, organization and createdById, which the records service sets from the caller's
 * identity. Unknown fields are refused; text fields refuse hidden characters and are stored NFC
 * (safeText; only additionalInfo keeps line breaks and tabs). Country options and source options
 * are lists the ADMIN edits, so the records service checks membership; this schema checks
 * everything static.
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
  country: z.preprocess(blankToUndefined, safeText(z.string().trim().max(100), { label: 'Country' }).nullish()),
  crimeType: z.preprocess(blankToUndefined, CrimeTypeSchema.nullish()),
  crimeSubtype: optionalText(200, 'Crime subtype'),
  additionalInfo: optionalText(10_000, 'Additional information', { multiline: true }),
});

type RecordFields = z.output<typeof RecordFieldsSchema>;
type RecordField = keyof RecordFields;

/**
 * Rules that relate fields to each other (SPEC §3, §5, §9). `has` tells which fields hold a valid
 * value: a rule is checked only when every field it relates does (always, for a whole record).
 */
function recordRuleIssues(
  r: Partial<RecordFields>,
  has: (field: RecordField) => boolean,
): Array<{ field: RecordField; message: string }> {
  const issues: Array<{ field: RecordField; message: string }> = [];
  const latest = latestAllowedDate();
  const dob = has('suspectDob') ? r.suspectDob : undefined;
  const incident = has('incidentDate') ? r.incidentDate : undefined;
  if (dob !== undefined && dob > latest) issues.push({ field: 'suspectDob', message: 'must not be in the future' });
  if (incident !== undefined && incident > latest) {
    issues.push({ field: 'incidentDate', message: 'must not be in the future' });
  }
  if (dob !== undefined && incident !== undefined && dob >= incident) {
    issues.push({ field: 'suspectDob', message: 'must be before the incident date' });
  }
  if (has('crimeSubtype') && has('crimeType')) {
    if (r.crimeSubtype && !r.crimeType) {
      issues.push({ field: 'crimeSubtype', message: 'needs a crime type' });
    } else if (r.crimeSubtype && r.crimeType && !isSubtypeOf(r.crimeType, r.crimeSubtype)) {
      issues.push({ field: 'crimeSubtype', message: `"${r.crimeSubtype}" is not a subtype of ${r.crimeType}` });
    }
  }
  if (
    has('internationalNexus') &&
    has('country') &&
    !r.internationalNexus &&
    r.country &&
    r.country.toLowerCase() !== DEFAULT_COUNTRY.toLowerCase()
  ) {
    issues.push({ field: 'country', message: `must be ${DEFAULT_COUNTRY} when there is no international nexus` });
  }
  return issues;
}

function checkRecordRules(r: RecordFields, ctx: z.RefinementCtx) {
  for (const { field, message } of recordRuleIssues(r, () => true)) {
    ctx.addIssue({ code: 'custom', path: [field], message });
  }
}

/** The defaults that depend on other fields. */
const withDefaults = <T extends RecordFields>(r: T) => ({ ...r, country: r.country ?? DEFAULT_COUNTRY });

/** `POST /api/records`: the record fields, checked field by field and across fields. */
export const RecordInputSchema = RecordFieldsSchema.superRefine(checkRecordRules).transform(withDefaults);
export type RecordInput = z.output<typeof RecordInputSchema>;

/**
 * A record input checked with every problem listed at once (a batch upload's row, issue 37): the
 * input when it is valid; else each field's problems, and those of the rules between fields whose
 * fields are valid — which the schema leaves unchecked while any field fails (zod runs an object's
 * refinements only on a valid object), so a row with a bad amount and a date of birth in the
 * future is told both at once. `valid` holds the fields that are valid on their own (the records
 * service checks the option lists on them). A problem of the whole input has the field "".
 */
export function recordInputProblems(
  body: unknown,
):
  | { input: RecordInput }
  | { errors: Array<{ field: string; message: string }>; valid: Partial<Record<RecordField, unknown>> } {
  const parsed = RecordInputSchema.safeParse(body);
  if (parsed.success) return { input: parsed.data };
  const errors = fieldErrors(parsed.error);
  const valid: Partial<Record<RecordField, unknown>> = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { errors, valid };
  const given = body as Record<string, unknown>;
  for (const field of Object.keys(RecordFieldsSchema.shape) as RecordField[]) {
    const value = Object.hasOwn(given, field) ? given[field] : undefined;
    const one = RecordFieldsSchema.shape[field].safeParse(value);
    if (one.success) valid[field] = one.data;
  }
  const has = (field: RecordField) => Object.hasOwn(valid, field);
  const seen = new Set(errors.map((e) => `${e.field}\u0000${e.message}`));
  for (const issue of recordRuleIssues(valid as Partial<RecordFields>, has)) {
    if (seen.has(`${issue.field}\u0000${issue.message}`)) continue;
    seen.add(`${issue.field}\u0000${issue.message}`);
    errors.push(issue);
  }
  return { errors, valid };
}

/**
 * `PUT /api/records/{id}`: the full set of record fields (a field left out is cleared or takes its
 * default), plus optionally the `version` the editor started from. A stale version, or a stale
 * `If-Match` header, answers 409 instead of overwriting someone else's change.
 */
export const RecordUpdateSchema = RecordFieldsSchema.extend({
  version: z.number({ error: 'Version must be a whole number' }).int().positive().optional(),
})
  .superRefine(checkRecordRules)
  .transform(withDefaults);
export type RecordUpdate = z.output<typeof RecordUpdateSchema>;

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
  /** Starts at 1 and grows with every change; send it back (or as `If-Match`) when editing. */
  version: z.number().int().positive(),
  /**
   * SPEC §2 "Linked" column: the record has at least one cross-agency link (the linking service's
   * `links.created` events; eventually consistent with them). Setting it is not an edit: it changes
   * neither `version` nor `updatedAt`. Defaults keep events from before the flag decodable.
   */
  linked: z.boolean().default(false),
  /** The organizations of the records this one is linked to: distinct, sorted. */
  linkedOrganizations: z.array(OrganizationSchema).default([]),
});
export type CaseRecord = z.infer<typeof RecordSchema>;

/** Whether a country name is one of the fixed options of the create and search forms. */
export function isKnownCountry(name: string): boolean {
  return (COUNTRIES as readonly string[]).includes(name);
}

/** A row of `GET /api/admin/records`: a record with its `amount` (case + seized + confiscated). */
export const AdminRecordSchema = RecordSchema.extend({ amount: z.string() });
export type AdminRecord = z.infer<typeof AdminRecordSchema>;

/** An empty search field: "", "  " or null. */
const notGiven = (v: unknown) => (v === null ? undefined : blankToUndefined(v));
const searchText = (max: number, label: string) =>
  z.preprocess(
    notGiven,
    safeText(z.string().trim().max(max, `${label} must be at most ${max} characters`), { label }).optional(),
  );
const searchValue = <T extends z.ZodType>(schema: T) => z.preprocess(notGiven, schema.optional());

/**
 * `POST /api/records/search` (SPEC §3 "Search filter", §7). Every filter is optional; the given
 * ones are combined with AND. Blank strings and nulls (an empty form field) mean "not given".
 */
export const RecordSearchSchema = z.strictObject({
  freeText: searchText(500, 'Free text'),
  incidentNumber: searchText(64, 'Incident number'),
  suspectName: searchText(200, 'Suspect name'),
  suspectDob: searchValue(DateOnlySchema),
  incidentDate: searchValue(DateOnlySchema),
  amount: searchValue(MoneySchema),
  caseAmount: searchValue(MoneySchema),
  seizedAmount: searchValue(MoneySchema),
  confiscatedAmount: searchValue(MoneySchema),
  country: searchText(100, 'Country'),
  cyberAssisted: z.preprocess(notGiven, z.boolean({ error: 'Cyber-assisted must be true or false' }).optional()),
  crimeType: searchValue(CrimeTypeSchema),
});
export type RecordSearch = z.output<typeof RecordSearchSchema>;

/** Paging of every record list: `?limit=` (1–1000, default 100) and the `cursor` of the previous page. */
export const PAGE_DEFAULT_LIMIT = 100;
export const PAGE_MAX_LIMIT = 1000;
export const PageQuerySchema = z.object({
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${PAGE_MAX_LIMIT}` })
    .int(`limit must be a whole number from 1 to ${PAGE_MAX_LIMIT}`)
    .min(1, `limit must be a whole number from 1 to ${PAGE_MAX_LIMIT}`)
    .max(PAGE_MAX_LIMIT, `limit must be a whole number from 1 to ${PAGE_MAX_LIMIT}`)
    .default(PAGE_DEFAULT_LIMIT),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'cursor must be the value of a previous X-Next-Cursor header')
    .optional(),
});
export type PageQuery = z.output<typeof PageQuerySchema>;
/** Response header: how many items the whole list has (the body holds one page). */
export const TOTAL_COUNT_HEADER = 'x-total-count';
/** Response header: the cursor of the next page; absent on the last page. */
export const NEXT_CURSOR_HEADER = 'x-next-cursor';

/** The two lists ADMIN edits (SPEC §3 "Dropdown option"). */
export const DROPDOWN_TYPES = ['source', 'country'] as const;
export const DropdownTypeSchema = z.enum(DROPDOWN_TYPES, { error: 'Option list must be source or country' });
export type DropdownType = z.infer<typeof DropdownTypeSchema>;

/** What `GET /api/dropdown-options/{type}` lists. */
export const DropdownOptionSchema = z.object({ id: z.string(), value: z.string() });
export type DropdownOption = z.infer<typeof DropdownOptionSchema>;

/**
 * `PUT /api/dropdown-options/{type}`: the whole new list. Values are trimmed, blanks dropped and
 * repeats (ignoring letter case) removed, keeping the first; at least one value must remain. A value
 * with a hidden character is refused; values are stored NFC (safeText).
 */
export const UpdateDropdownOptionsSchema = z.strictObject({
  values: z
    .array(
      // Multi-line: a tab or a line break inside a value becomes a space (below), so it may stay.
      safeText(z.string({ error: 'each value must be text' }).max(200, 'each value must be at most 200 characters'), {
        label: 'each value',
        multiline: true,
      }),
      { error: 'values must be a list of strings' },
    )
    .max(1000, 'at most 1000 values')
    .transform((values) => {
      const seen = new Set<string>();
      const out: string[] = [];
      for (const raw of values) {
        const value = raw.trim().replace(/\s+/g, ' ');
        const key = value.toLowerCase();
        if (value && !seen.has(key)) {
          seen.add(key);
          out.push(value);
        }
      }
      return out;
    })
    .refine((values) => values.length > 0, 'at least one non-blank value is required'),
});
export type UpdateDropdownOptions = z.output<typeof UpdateDropdownOptionsSchema>;

/** The JetStream stream of record changes and its subjects (ARCHITECTURE.md "Events"). */
export const RECORDS_STREAM = 'RECORDS';
export const RECORD_EVENT_TYPES = ['created', 'updated', 'deleted', 'restored'] as const;
export type RecordEventType = (typeof RECORD_EVENT_TYPES)[number];
export const recordSubject = (type: RecordEventType, prefix = 'records') => `${prefix}.${type}`;

/** Who made a change. */
export const ActorSchema = z.object({
  userId: ObjectIdSchema,
  name: z.string(),
  organization: OrganizationSchema,
});
export type Actor = z.infer<typeof ActorSchema>;

/**
 * `records.created|updated|deleted|restored`: one per change, published with `id` as
 * `Nats-Msg-Id`, so a re-published event is stored once. `record` is the record after the change.
 */
export const RecordEventSchema = z.object({
  id: z.uuid(),
  type: z.enum(RECORD_EVENT_TYPES),
  time: z.iso.datetime(),
  actor: ActorSchema,
  record: RecordSchema,
});
export type RecordEvent = z.infer<typeof RecordEventSchema>;

/** Incident numbers are unique ignoring letter case and spacing: "bps-2024-1 " is "BPS-2024-1". */
export function incidentKey(incidentNumber: string): string {
  return incidentNumber.trim().replace(/\s+/g, ' ').toUpperCase();
}

/** A create, an edit or an uploaded row whose incident number another record (or row) holds. */
export const INCIDENT_NUMBER_TAKEN = 'Incident number already exists';

/**
 * When a budget spent is whole again, as a person reads it: "14:05 UTC" (rounded up to the minute,
 * so the time named has passed when the clock shows it), with the date when it is not today's.
 */
export function retryTimeText(at: Date, now: Date = new Date()): string {
  const up = new Date(Math.ceil(at.getTime() / 60_000) * 60_000);
  const iso = up.toISOString();
  const time = `${iso.slice(11, 16)} UTC`;
  return iso.slice(0, 10) === now.toISOString().slice(0, 10) ? time : `${iso.slice(0, 10)} ${time}`;
}

/**
 * 429 to a create or an edit of the incident number while the user's budget of incident numbers
 * found held by other agencies is spent (docs/adr/0015): every such write is refused until then,
 * whatever its number, so the refusal itself says nothing about the number.
 */
export const incidentProbesSpentMessage = (retryAt: Date, now?: Date) =>
  `Too many incident numbers already used by other agencies. Try again after ${retryTimeText(retryAt, now)}.`;
