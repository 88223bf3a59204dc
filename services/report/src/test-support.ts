import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type ReportConfig, ReportConfigSchema } from './config.ts';

/**
 * Report configuration for tests: the given database, Redis, NATS, stats and linking services; the
 * queue's keys under `queuePrefix` (a test namespace, so parallel files never share jobs); short
 * job locks; no model unless `overrides` name one. The AUDIT stream and prefix default to the
 * namespace's (`t1a2b3c_report` → `t1a2b3c_AUDIT`, `t1a2b3c.audit`, else `<db>_AUDIT`, `<db>_audit`).
 */
export function reportTestConfig(options: {
  mongoUrl: string;
  redisUrl: string;
  natsUrl: string;
  statsUrl: string;
  linkingUrl: string;
  dbName: string;
  queuePrefix: string;
  auditStream?: string;
  auditSubjectPrefix?: string;
  overrides?: Record<string, string>;
}): ReportConfig {
  const audit = auditNamesBeside(options.dbName);
  return ReportConfigSchema.parse({
    ...testIdentityEnv('report'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    REDIS_URL: options.redisUrl,
    NATS_URL: options.natsUrl,
    AUDIT_STREAM: options.auditStream ?? audit.stream,
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix ?? audit.subjectPrefix,
    STATS_URL: options.statsUrl,
    LINKING_URL: options.linkingUrl,
    REPORT_QUEUE_PREFIX: options.queuePrefix.replace(/:+$/, ''),
    REPORT_LOCK_MS: '2000',
    LOG_LEVEL: 'silent',
    ...options.overrides,
  });
}

/** The AUDIT stream and prefix of a test database's namespace (`<ns>_<name>` → `<ns>_AUDIT`, `<ns>.audit`). */
function auditNamesBeside(dbName: string) {
  const ns = /^([A-Za-z0-9-]+)_[A-Za-z0-9_-]+$/.exec(dbName)?.[1];
  return ns
    ? { stream: `${ns}_AUDIT`, subjectPrefix: `${ns}.audit` }
    : { stream: `${dbName}_AUDIT`, subjectPrefix: `${dbName}_audit` };
}
