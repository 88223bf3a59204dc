import { type RecordsConfig, RecordsConfigSchema } from './config.ts';

/** Records configuration for tests: the given database, stream and subject prefix; fast retries. */
export function recordsTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  stream: string;
  subjectPrefix: string;
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
    RELAY_RETRY_MS: String(options.retryMs ?? 100),
    RELAY_SWEEP_MS: String(options.sweepMs ?? 60_000),
    LOG_LEVEL: 'silent',
  });
}
