import { type LinkingConfig, LinkingConfigSchema } from './config.ts';

/** Linking configuration for tests: the given database, streams and prefixes; fast retries. */
export function linkingTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  recordsStream: string;
  recordsSubjectPrefix: string;
  linksStream: string;
  linksSubjectPrefix: string;
  consumer?: string;
  threshold?: number;
  autoLink?: boolean;
  recordWaitMs?: number;
}): LinkingConfig {
  return LinkingConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    RECORDS_STREAM: options.recordsStream,
    RECORDS_SUBJECT_PREFIX: options.recordsSubjectPrefix,
    LINKS_STREAM: options.linksStream,
    LINKS_SUBJECT_PREFIX: options.linksSubjectPrefix,
    RECORDS_CONSUMER: options.consumer ?? 'linking',
    ...(options.threshold === undefined ? {} : { LINK_THRESHOLD: String(options.threshold) }),
    AUTO_LINK: String(options.autoLink ?? true),
    RECORD_WAIT_MS: String(options.recordWaitMs ?? 5000),
    RELAY_RETRY_MS: '100',
    // Events fetched but not handled when a test stops the service come back within a test's wait.
    EVENT_ACK_WAIT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
}
