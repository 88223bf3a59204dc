import { type RecordsConfig, RecordsConfigSchema } from './config.ts';

/**
 * Records configuration for tests: the given database, streams and subject prefixes; fast retries.
 * The LINKS stream and prefix default to the siblings of the records ones (`t1a2b3c_RECORDS` →
 * `t1a2b3c_LINKS`, `t1a2b3c.records` → `t1a2b3c.links`, else `<stream>_LINKS`, `<prefix>_links`):
 * in the test's namespace, so parallel files never share them, and the names a linking service of
 * the same namespace uses.
 */
export function recordsTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  stream: string;
  subjectPrefix: string;
  linksStream?: string;
  linksSubjectPrefix?: string;
  retryMs?: number;
  sweepMs?: number;
}): RecordsConfig {
  return RecordsConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    RECORDS_STREAM: options.stream,
    RECORDS_SUBJECT_PREFIX: options.subjectPrefix,
    LINKS_STREAM: options.linksStream ?? sibling(options.stream, /(^|_)RECORDS$/, 'LINKS', '_'),
    LINKS_SUBJECT_PREFIX: options.linksSubjectPrefix ?? sibling(options.subjectPrefix, /(^|\.)records$/, 'links', '_'),
    RELAY_RETRY_MS: String(options.retryMs ?? 100),
    RELAY_SWEEP_MS: String(options.sweepMs ?? 60_000),
    LOG_LEVEL: 'silent',
  });
}

/** `name` with its last token `pattern` replaced by `token`, or `token` appended after `separator`. */
function sibling(name: string, pattern: RegExp, token: string, separator: string): string {
  return pattern.test(name) ? name.replace(pattern, `$1${token}`) : `${name}${separator}${token}`;
}
