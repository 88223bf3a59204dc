import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type IngestConfig, IngestConfigSchema } from './config.ts';

/**
 * Ingest configuration for tests: the given database, Redis, NATS and records service; the queue's
 * keys under `queuePrefix` (a test namespace, so parallel files never share jobs); short job locks
 * so a killed worker's job is taken up again within seconds. The AUDIT stream and prefix default to
 * the namespace's (`t1a2b3c_ingest` → `t1a2b3c_AUDIT`, `t1a2b3c.audit`, else `<db>_AUDIT`,
 * `<db>_audit`): what the records service and an audit writer of the same namespace use.
 */
export function ingestTestConfig(options: {
  mongoUrl: string;
  redisUrl: string;
  natsUrl: string;
  recordsUrl: string;
  dbName: string;
  queuePrefix: string;
  auditStream?: string;
  auditSubjectPrefix?: string;
  overrides?: Record<string, string>;
}): IngestConfig {
  const audit = auditNamesBeside(options.dbName);
  return IngestConfigSchema.parse({
    ...testIdentityEnv('ingest'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    REDIS_URL: options.redisUrl,
    NATS_URL: options.natsUrl,
    AUDIT_STREAM: options.auditStream ?? audit.stream,
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix ?? audit.subjectPrefix,
    RECORDS_URL: options.recordsUrl,
    INGEST_QUEUE_PREFIX: options.queuePrefix.replace(/:+$/, ''),
    INGEST_LOCK_MS: '2000',
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
