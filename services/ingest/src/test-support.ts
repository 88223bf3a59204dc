import { type IngestConfig, IngestConfigSchema } from './config.ts';

/**
 * Ingest configuration for tests: the given database, Redis and records service; the queue's keys
 * under `queuePrefix` (a test namespace, so parallel files never share jobs); short job locks so
 * a killed worker's job is taken up again within seconds.
 */
export function ingestTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  redisUrl: string;
  recordsUrl: string;
  dbName: string;
  queuePrefix: string;
  overrides?: Record<string, string>;
}): IngestConfig {
  return IngestConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    REDIS_URL: options.redisUrl,
    RECORDS_URL: options.recordsUrl,
    INGEST_QUEUE_PREFIX: options.queuePrefix.replace(/:+$/, ''),
    INGEST_LOCK_MS: '2000',
    LOG_LEVEL: 'silent',
    ...options.overrides,
  });
}
