import { z } from 'zod';
import { DateOnlySchema, MoneySchema, ObjectIdSchema } from './common.ts';
import { AgencySchema, NamlcOrganizationSchema, OrganizationSchema } from './organizations.ts';
import { ActorSchema, RecordSchema } from './records.ts';
import { safeText } from './text.ts';

/** The four fields the scorer compares (SPEC §3 "Match-link criteria"). */
export const MATCH_CRITERIA_FIELDS = ['suspectName', 'suspectDob', 'incidentDate', 'caseAmount'] as const;
export type MatchCriteriaField = (typeof MATCH_CRITERIA_FIELDS)[number];

/** SPEC §3 matchCriteria: a flag per field, set when the field counted for the match. */
export const MatchCriteriaSchema = z.strictObject({
  suspectName: z.boolean().default(false),
  suspectDob: z.boolean().default(false),
  incidentDate: z.boolean().default(false),
  caseAmount: z.boolean().default(false),
});
export type MatchCriteria = z.output<typeof MatchCriteriaSchema>;

export const MATCH_STATUSES = ['match', 'partial', 'mismatch', 'missing'] as const;

/**
 * Why two records matched, field by field: the comparison's status, its signed share of the
 * confidence in points (the four add up to the confidence) and its weight of evidence in bits.
 */
export const MatchExplanationSchema = z.array(
  z.object({
    field: z.enum(MATCH_CRITERIA_FIELDS),
    status: z.enum(MATCH_STATUSES),
    contribution: z.number(),
    weight: z.number(),
    detail: z.string().optional(),
  }),
);
export type MatchExplanation = z.infer<typeof MatchExplanationSchema>;

export const CHECK_MATCHES_MISSING_FIELDS =
  'Please fill in NAMLC Organization, Suspect Name, Suspect DOB, Incident Date, and Case Amount to check for matches';

const CHECK_MATCHES_FIELDS = ['namlcOrganization', 'suspectName', 'suspectDob', 'incidentDate', 'caseAmount'];

const present = (v: unknown) => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');

/**
 * `POST /api/records/check-namlc-matches`. A missing field (absent, null or blank) answers SPEC's
 * one message; a field that is there but malformed answers a message naming it.
 */
export const CheckMatchesSchema = z
  .unknown()
  .superRefine((body, ctx) => {
    const fields = (body ?? {}) as Record<string, unknown>;
    const complete =
      typeof body === 'object' &&
      body !== null &&
      !Array.isArray(body) &&
      CHECK_MATCHES_FIELDS.every((f) => present(fields[f]));
    if (!complete) ctx.addIssue({ code: 'custom', message: CHECK_MATCHES_MISSING_FIELDS });
  })
  .pipe(
    z.object({
      namlcOrganization: NamlcOrganizationSchema,
      suspectName: safeText(z.string({ error: 'must be text' }).trim().max(200, 'must be at most 200 characters')),
      suspectDob: DateOnlySchema,
      incidentDate: DateOnlySchema,
      caseAmount: MoneySchema,
    }),
  );
export type CheckMatches = z.output<typeof CheckMatchesSchema>;

/** What SPEC §2's match panel shows of another agency's record, and no more. */
export const MatchPanelRecordSchema = RecordSchema.pick({
  id: true,
  incidentNumber: true,
  suspectName: true,
  suspectDob: true,
  incidentDate: true,
  caseAmount: true,
  organization: true,
});

/** One record the NAMLC check found, with what the match panel shows and why it matched. */
export const MatchCandidateSchema = MatchPanelRecordSchema.extend({
  confidence: z.number(),
  matchCriteria: MatchCriteriaSchema,
  explanation: MatchExplanationSchema,
});
export type MatchCandidate = z.infer<typeof MatchCandidateSchema>;
export const CheckMatchesResponseSchema = z.object({ matches: z.array(MatchCandidateSchema) });

/** `POST /api/records/link`. The confidence is the scorer's; `matchCriteria` is what the user saw. */
export const CreateLinkSchema = z.strictObject({
  sourceRecordId: ObjectIdSchema,
  linkedRecordId: ObjectIdSchema,
  matchCriteria: MatchCriteriaSchema.optional(),
});
export type CreateLink = z.output<typeof CreateLinkSchema>;

export const LINK_TYPES = ['auto', 'manual'] as const;
export const LinkTypeSchema = z.enum(LINK_TYPES);

/**
 * Why a link stopped disclosing (issue 34): rejected by either agency whose record is in it, or by
 * ADMIN, with an optional reason. A rejected pair is never linked again, automatically or by hand,
 * until ADMIN restores it. Agencies never see a rejected link; ADMIN's link views show it with this.
 */
export const LinkRejectionSchema = z.object({
  at: z.string(),
  byId: ObjectIdSchema,
  byOrganization: OrganizationSchema,
  reason: z.string(),
});
export type LinkRejection = z.infer<typeof LinkRejectionSchema>;

/** The most characters of a rejection's reason. */
export const REJECT_REASON_MAX = 500;

/** `DELETE /api/records/{id}/links/{linkedId}` (optional body). Answered 204. */
export const RejectLinkSchema = z.strictObject({
  reason: safeText(
    z
      .string({ error: 'must be text' })
      .trim()
      .max(REJECT_REASON_MAX, `must be at most ${REJECT_REASON_MAX} characters`),
    { multiline: true },
  ).optional(),
});
export type RejectLink = z.output<typeof RejectLinkSchema>;

/** The one answer to every refused link, reject or restore: another agency's id tells nothing. */
export const LINKED_RECORD_NOT_FOUND = 'Linked record not found';
export const LINK_NOT_FOUND = 'Link not found';

/** A stored link (SPEC §3 "Record link"). */
export const LinkSchema = z.object({
  id: ObjectIdSchema,
  sourceRecordId: ObjectIdSchema,
  linkedRecordId: ObjectIdSchema,
  /** The two records' organizations, in the order of the ids above. */
  sourceOrganization: OrganizationSchema,
  linkedOrganization: OrganizationSchema,
  linkType: LinkTypeSchema,
  /** 0–100 with two decimals. */
  confidence: z.number(),
  matchCriteria: MatchCriteriaSchema,
  explanation: MatchExplanationSchema,
  createdAt: z.string(),
  /** Who made a manual link; null for an automatic one. */
  createdById: ObjectIdSchema.nullable(),
  /** Set on a rejected link (only ADMIN's views show one). */
  rejection: LinkRejectionSchema.optional(),
});
export type Link = z.infer<typeof LinkSchema>;

/**
 * Set to `pending` on a record's links views (`GET …/links`, `…/linked`, answered `[]`) while the
 * linking service has not yet seen the record (its `records.created` is still on its way, behind a
 * backlog): the user's own record, not linked yet rather than not found (issue 36).
 */
export const LINKING_STATE_HEADER = 'X-Linking-State';
export const LINKING_PENDING = 'pending';

/** `GET /api/records/{id}/links`: each link of the record, seen from it, with the other record. */
export const RecordLinkViewSchema = LinkSchema.extend({ linkedRecord: RecordSchema });
export type RecordLinkView = z.infer<typeof RecordLinkViewSchema>;

/** `GET /api/records/{id}/linked`. */
export const LinkedRecordSummarySchema = z.object({
  organization: OrganizationSchema,
  id: ObjectIdSchema,
  incidentNumber: z.string(),
  suspectName: z.string(),
});
export type LinkedRecordSummary = z.infer<typeof LinkedRecordSummarySchema>;

/** The JetStream stream of link events (ARCHITECTURE.md "Events"). */
export const LINKS_STREAM = 'LINKS';
export const LINK_EVENT_TYPES = ['created', 'rejected', 'restored'] as const;
export type LinkEventType = (typeof LINK_EVENT_TYPES)[number];
/** `links.created`, `links.rejected`, `links.restored`; no type: every link subject (`links.*`). */
export const linkSubject = (prefix = 'links', type: LinkEventType | '*' = 'created') => `${prefix}.${type}`;

/**
 * `links.created`, `links.rejected` and `links.restored`, published with the event's id as
 * `Nats-Msg-Id` (a created event's id is the link's). `actor` is null for auto-links. A rejected or
 * restored event carries each of the link's two records' linked organizations after the change
 * (`organizations`, by record id), so that a record's Linked flag follows without knowing its
 * other links.
 */
export const LinkEventSchema = z.object({
  id: z.string().min(1),
  type: z.enum(LINK_EVENT_TYPES).default('created'),
  time: z.iso.datetime(),
  actor: ActorSchema.nullable(),
  link: LinkSchema,
  organizations: z.record(z.string(), z.array(OrganizationSchema)).optional(),
});
export type LinkEvent = z.infer<typeof LinkEventSchema>;

/**
 * `GET /api/links/summary` (beyond SPEC; what a report is written from): links between records
 * that are both not deleted, counted by the pair of agencies they join (`agencies` in alphabetical
 * order), most first. An agency sees the pairs it is part of; ADMIN sees every pair.
 */
export const LinkSummarySchema = z.object({
  total: z.number().int().nonnegative(),
  pairs: z.array(
    z.object({
      agencies: z.tuple([AgencySchema, AgencySchema]),
      count: z.number().int().positive(),
      auto: z.number().int().nonnegative(),
      manual: z.number().int().nonnegative(),
    }),
  ),
});
export type LinkSummary = z.infer<typeof LinkSummarySchema>;
