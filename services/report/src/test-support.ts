import { type ReportConfig, ReportConfigSchema } from './config.ts';

/**
 * Report configuration for tests: the given database, Redis, stats and linking services; the
 * queue's keys under `queuePrefix` (a test namespace, so parallel files never share jobs); short
 * job locks; no model unless `overrides` name one.
 */
export function reportTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  redisUrl: string;
  statsUrl: string;
  linkingUrl: string;
  dbName: string;
  queuePrefix: string;
  overrides?: Record<string, string>;
}): ReportConfig {
  return ReportConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    REDIS_URL: options.redisUrl,
    STATS_URL: options.statsUrl,
    LINKING_URL: options.linkingUrl,
    REPORT_QUEUE_PREFIX: options.queuePrefix.replace(/:+$/, ''),
    REPORT_LOCK_MS: '2000',
    LOG_LEVEL: 'silent',
    ...options.overrides,
  });
}
