import { LINKS_STREAM } from '@nrad/contracts';
import { DEFAULT_REVIEW_THRESHOLD, DEFAULT_THRESHOLD } from '@nrad/matching';
import { auditEnv, baseServiceEnv, env, loadConfig, recordEventsEnv } from '@nrad/service-kit';
import { z } from 'zod';

/**
 * DISCLOSURE_THRESHOLD (also read by links:audit). Its default is the review band's lower edge
 * (issue 36: a possible match shows each agency the other's record, so the band starts no lower).
 */
export const disclosureThreshold = z.coerce.number().min(50).max(100).default(DEFAULT_REVIEW_THRESHOLD);
/** LINK_THRESHOLD (also read by links:audit). */
export const linkThreshold = z.coerce.number().min(0).max(100).default(DEFAULT_THRESHOLD);
/** REVIEW_THRESHOLD as given (also read by links:audit); see reviewThresholdOf. */
export const reviewThreshold = z.coerce.number().min(0).max(100).optional();

/**
 * The review band's lower edge in force: REVIEW_THRESHOLD, or unset DEFAULT_REVIEW_THRESHOLD kept
 * between DISCLOSURE_THRESHOLD and LINK_THRESHOLD (with LINK_THRESHOLD at or under it, the band is
 * empty: nothing is proposed).
 */
export function reviewThresholdOf(c: {
  readonly REVIEW_THRESHOLD?: number | undefined;
  readonly DISCLOSURE_THRESHOLD: number;
  readonly LINK_THRESHOLD: number;
}): number {
  return c.REVIEW_THRESHOLD ?? Math.min(c.LINK_THRESHOLD, Math.max(c.DISCLOSURE_THRESHOLD, DEFAULT_REVIEW_THRESHOLD));
}
/** The service's database (also read by links:audit). */
export const linkingDb = z.string().min(1).default('nrad_linking');

export const LinkingConfigSchema = z
  .object({
    ...baseServiceEnv,
    PORT: env.port(8083),
    MONGO_DB: linkingDb,
    NATS_URL: z.string({ error: 'is required' }).min(1, 'is required'),
    ...recordEventsEnv('linking'),
    /** Where `links.created` goes. */
    LINKS_STREAM: env.streamName(LINKS_STREAM),
    LINKS_SUBJECT_PREFIX: env.subjectPrefix('links'),
    /**
     * The audit stream (issue 21): NAMLC checks, reads of links and refusals; a link's `link.create`
     * goes through the link's outbox beside its `links.created`.
     */
    ...auditEnv,
    /** Whether new records are linked automatically (off: only the NAMLC check and manual links). */
    AUTO_LINK: env.bool(true),
    /**
     * One name word agreeing beside one that disagrees outright (Manfred and Gabriele Neumann born
     * the same day) links only when the word is rare and exact and the dates of birth are the same
     * (ScoreOptions.strictNames; ADR 0007 gives the figures both ways).
     */
    LINK_STRICT_NAMES: env.bool(false),
    /** Lowest confidence (0–100) for an automatic link; at least DISCLOSURE_THRESHOLD. */
    LINK_THRESHOLD: linkThreshold,
    /**
     * Lowest confidence (0–100) of a possible match (issue 36, ADR 0022): a new record's pairs from
     * here up to LINK_THRESHOLD are proposed to the two agencies' investigators, who confirm or
     * reject them. Between DISCLOSURE_THRESHOLD (a possible match shows each agency the other's
     * record) and LINK_THRESHOLD; unset, DEFAULT_REVIEW_THRESHOLD (50) kept between them
     * (reviewThresholdOf). Set it to LINK_THRESHOLD for no review band.
     */
    REVIEW_THRESHOLD: reviewThreshold,
    /**
     * Lowest confidence (0–100) at which another agency's record is disclosed (issue 34): a NAMLC
     * check shows a match, and a manual link is made, only at or above it (as the service scores
     * the stored pair), or for a record the same user's check disclosed within DISCLOSURE_TTL_MINUTES.
     */
    DISCLOSURE_THRESHOLD: disclosureThreshold,
    /** How long a NAMLC check's disclosure of a record lets the same user link it (minutes). */
    DISCLOSURE_TTL_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .default(30),
    /** Most results of one NAMLC check. */
    MATCH_LIMIT: z.coerce.number().int().min(1).max(500).default(50),
    /**
     * How long a request naming a record created moments ago waits for its `records.created` to
     * reach the index (the record was just saved; its event is on its way). Milliseconds.
     */
    RECORD_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(5000),
    /**
     * The records service, asked as the user whether a record the index has not seen yet is theirs
     * (issue 36): its links views then answer none, "linking in progress", instead of 404. Unset:
     * such a record is waited for (RECORD_WAIT_MS), then not found.
     */
    RECORDS_URL: env.url().optional(),
    /**
     * The linking service's own key, with which it asks the records service on a user's behalf
     * (identity.ts); required with RECORDS_URL.
     */
    IDENTITY_PRIVATE_KEY: env.privateKey().optional(),
    /** How often links whose event could not be published are retried (milliseconds). */
    RELAY_RETRY_MS: z.coerce.number().int().min(50).default(1000),
  })
  .refine((c) => !c.RECORDS_URL || c.IDENTITY_PRIVATE_KEY, {
    path: ['IDENTITY_PRIVATE_KEY'],
    message: 'is required with RECORDS_URL (the service signs its questions to the records service)',
  })
  .refine((c) => c.LINK_THRESHOLD >= c.DISCLOSURE_THRESHOLD, {
    path: ['LINK_THRESHOLD'],
    message: 'must be at least DISCLOSURE_THRESHOLD (an automatic link discloses the other record)',
  })
  .refine((c) => c.REVIEW_THRESHOLD === undefined || c.REVIEW_THRESHOLD >= c.DISCLOSURE_THRESHOLD, {
    path: ['REVIEW_THRESHOLD'],
    message: 'must be at least DISCLOSURE_THRESHOLD (a possible match discloses the other record)',
  })
  .refine((c) => c.REVIEW_THRESHOLD === undefined || c.REVIEW_THRESHOLD <= c.LINK_THRESHOLD, {
    path: ['REVIEW_THRESHOLD'],
    message: 'must be at most LINK_THRESHOLD (above it a pair is linked)',
  });
export type LinkingConfig = z.output<typeof LinkingConfigSchema>;

export const loadLinkingConfig = (source: Record<string, string | undefined> = process.env) =>
  loadConfig(LinkingConfigSchema, source);
