import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type LinkingConfig, LinkingConfigSchema } from './config.ts';

/**
 * Linking configuration for tests: the given database, streams and prefixes; fast retries. The
 * AUDIT stream and prefix default to the siblings of the records ones, as the records service's
 * test configuration names them (`t1a2b3c_RECORDS` → `t1a2b3c_AUDIT`, `t1a2b3c.records` →
 * `t1a2b3c.audit`, else `<stream>_AUDIT`, `<prefix>_audit`): in the test's namespace, so parallel
 * files never share them, and the same stream a records service of the namespace publishes to.
 */
export function linkingTestConfig(options: {
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  recordsStream: string;
  recordsSubjectPrefix: string;
  linksStream: string;
  linksSubjectPrefix: string;
  auditStream?: string;
  auditSubjectPrefix?: string;
  consumer?: string;
  threshold?: number;
  /** REVIEW_THRESHOLD; DISCLOSURE_THRESHOLD is set to it too (a possible match discloses). */
  reviewThreshold?: number;
  autoLink?: boolean;
  recordWaitMs?: number;
  /** RECORDS_URL: the records service asked whose a record the index has not seen is. */
  recordsUrl?: string;
}): LinkingConfig {
  return LinkingConfigSchema.parse({
    ...testIdentityEnv('linking'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    RECORDS_STREAM: options.recordsStream,
    RECORDS_SUBJECT_PREFIX: options.recordsSubjectPrefix,
    LINKS_STREAM: options.linksStream,
    LINKS_SUBJECT_PREFIX: options.linksSubjectPrefix,
    AUDIT_STREAM: options.auditStream ?? sibling(options.recordsStream, /(^|_)RECORDS$/, 'AUDIT', '_'),
    AUDIT_SUBJECT_PREFIX:
      options.auditSubjectPrefix ?? sibling(options.recordsSubjectPrefix, /(^|\.)records$/, 'audit', '_'),
    RECORDS_CONSUMER: options.consumer ?? 'linking',
    ...(options.threshold === undefined ? {} : { LINK_THRESHOLD: String(options.threshold) }),
    ...(options.reviewThreshold === undefined
      ? {}
      : { REVIEW_THRESHOLD: String(options.reviewThreshold), DISCLOSURE_THRESHOLD: String(options.reviewThreshold) }),
    AUTO_LINK: String(options.autoLink ?? true),
    RECORD_WAIT_MS: String(options.recordWaitMs ?? 5000),
    ...(options.recordsUrl ? { RECORDS_URL: options.recordsUrl } : {}),
    RELAY_RETRY_MS: '100',
    // Events fetched but not handled when a test stops the service come back within a test's wait.
    EVENT_ACK_WAIT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
}

/** `name` with its last token `pattern` replaced by `token`, or `token` appended after `separator`. */
function sibling(name: string, pattern: RegExp, token: string, separator: string): string {
  return pattern.test(name) ? name.replace(pattern, `$1${token}`) : `${name}${separator}${token}`;
}
