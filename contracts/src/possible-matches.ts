import { z } from 'zod';
import { ObjectIdSchema, offsetPageQuery } from './common.ts';
import { MatchCriteriaSchema, MatchExplanationSchema, MatchPanelRecordSchema, RejectLinkSchema } from './links.ts';
import { OrganizationSchema } from './organizations.ts';

/**
 * Possible matches (issue 36, ADR 0022): pairs of records of two agencies that the scorer puts
 * between REVIEW_THRESHOLD and LINK_THRESHOLD — too uncertain to link by themselves, too likely to
 * hide. The investigators of the two agencies decide: Confirm makes a manual link, Reject records
 * that they are different people (the pair is never proposed or linked again).
 */

/** One side of a possible match: what SPEC §2's match panel shows of a record, and no more. */
export const PossibleMatchRecordSchema = MatchPanelRecordSchema;
export type PossibleMatchRecord = z.infer<typeof PossibleMatchRecordSchema>;

export const POSSIBLE_MATCH_DECISIONS = ['confirmed', 'rejected'] as const;

/** How a possible match was decided, by whom (ADMIN's list shows decided pairs with this). */
export const PossibleMatchDecisionSchema = z.object({
  kind: z.enum(POSSIBLE_MATCH_DECISIONS),
  at: z.string(),
  byId: ObjectIdSchema,
  byOrganization: OrganizationSchema,
  reason: z.string(),
  /** The manual link a confirmation made. */
  linkId: ObjectIdSchema.optional(),
});
export type PossibleMatchDecision = z.infer<typeof PossibleMatchDecisionSchema>;

/**
 * A possible match as a user sees it: the two records (the caller's agency's first; as stored for
 * ADMIN), the score, the criteria and the explanation, when it was proposed, and for ADMIN its
 * decision.
 */
export const PossibleMatchSchema = z.object({
  id: ObjectIdSchema,
  records: z.tuple([PossibleMatchRecordSchema, PossibleMatchRecordSchema]),
  /** 0–100 with two decimals, as the scorer gave it when the pair was proposed. */
  confidence: z.number(),
  matchCriteria: MatchCriteriaSchema,
  explanation: MatchExplanationSchema,
  createdAt: z.string(),
  decision: PossibleMatchDecisionSchema.optional(),
});
export type PossibleMatch = z.infer<typeof PossibleMatchSchema>;

/** Most possible matches on one page. */
export const POSSIBLE_MATCH_PAGE_MAX = 100;

/** `GET /api/possible-matches?limit=&offset=`: best first. */
export const PossibleMatchPageQuerySchema = offsetPageQuery(POSSIBLE_MATCH_PAGE_MAX);
export type PossibleMatchPageQuery = z.output<typeof PossibleMatchPageQuerySchema>;

/** A page of possible matches; `total` counts every one the caller may see, whatever the page. */
export const PossibleMatchPageSchema = z.object({
  items: z.array(PossibleMatchSchema),
  total: z.number().int().min(0),
});
export type PossibleMatchPage = z.infer<typeof PossibleMatchPageSchema>;

/** `GET /api/possible-matches/count`: the open pairs the caller may decide (the navigation's badge). */
export const PossibleMatchCountSchema = z.object({ open: z.number().int().min(0) });
export type PossibleMatchCount = z.infer<typeof PossibleMatchCountSchema>;

/** The confidence bands the decisions are counted in: [50, 60), [60, 70), … [90, 100]. */
export const LABEL_BAND_EDGES = [50, 60, 70, 80, 90, 100] as const;

/**
 * What the decisions say of one band of confidence: the labels it holds — confirmed possible
 * matches (the same person), rejected possible matches and rejected links (different people) — and
 * what they estimate: precision, the share confirmed in the band; recall above, the share of every
 * confirmed pair that scored at or above the band's lower edge (what a threshold there would keep).
 */
export const LabelBandSchema = z.object({
  from: z.number(),
  to: z.number(),
  labels: z.number().int().min(0),
  confirmed: z.number().int().min(0),
  rejected: z.number().int().min(0),
  /** Null without labels. */
  precision: z.number().nullable(),
  /** Null without any confirmed pair. */
  recallAbove: z.number().nullable(),
});
export type LabelBand = z.infer<typeof LabelBandSchema>;

/**
 * The pairs that go to review for their names (issue 36): a partial name (a surname alone against a
 * full name) and one name word against another (twins, siblings, a changed name).
 */
export const UncertainClassSchema = z.enum(['partialName', 'loneWord', 'unconfirmedDob']);
export type UncertainClass = z.infer<typeof UncertainClassSchema>;

/**
 * One uncertain class's calibration from the decisions: how many of its possible matches were
 * decided and confirmed, its prior share (%), the estimate from both, and the confidence its pairs
 * are shown with at most (the estimate kept within the review band; null without a band).
 */
export const ClassFiguresSchema = z.object({
  uncertain: UncertainClassSchema,
  labels: z.number().int().min(0),
  confirmed: z.number().int().min(0),
  prior: z.number(),
  estimate: z.number(),
  ceiling: z.number().nullable(),
});
export type ClassFigures = z.infer<typeof ClassFiguresSchema>;

/** `GET /api/possible-matches/labels` (ADMIN): the decisions as labels, per band and per uncertain class. */
export const LabelFiguresSchema = z.object({
  bands: z.array(LabelBandSchema),
  /** Every label, in a band or below the lowest. */
  labels: z.number().int().min(0),
  classes: z.array(ClassFiguresSchema),
});
export type LabelFigures = z.infer<typeof LabelFiguresSchema>;

/** `POST /api/possible-matches/{id}/reject` (optional body, as a link's rejection). Answered 204. */
export const RejectPossibleMatchSchema = RejectLinkSchema;
export type RejectPossibleMatch = z.output<typeof RejectPossibleMatchSchema>;

/** The one answer to every refused decision: another agency's pair, a decided one and no pair alike. */
export const POSSIBLE_MATCH_NOT_FOUND = 'Possible match not found';
