import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type AuditConfig, AuditConfigSchema } from './config.ts';

/**
 * Audit configuration for tests: the given database, the AUDIT and RECORDS streams and subject
 * prefixes of the test's namespace, the durables; quick redelivery, no log.
 */
export function auditTestConfig(options: {
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  auditStream: string;
  auditSubjectPrefix: string;
  recordsStream: string;
  recordsSubjectPrefix: string;
  consumer?: string;
  recordsConsumer?: string;
  retentionDays?: number;
  retentionCheckHours?: number;
}): AuditConfig {
  return AuditConfigSchema.parse({
    ...testIdentityEnv('audit'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    AUDIT_STREAM: options.auditStream,
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix,
    AUDIT_CONSUMER: options.consumer ?? 'audit-writer',
    RECORDS_STREAM: options.recordsStream,
    RECORDS_SUBJECT_PREFIX: options.recordsSubjectPrefix,
    RECORDS_CONSUMER: options.recordsConsumer ?? 'audit',
    ...(options.retentionDays !== undefined ? { AUDIT_RETENTION_DAYS: String(options.retentionDays) } : {}),
    ...(options.retentionCheckHours !== undefined
      ? { AUDIT_RETENTION_CHECK_HOURS: String(options.retentionCheckHours) }
      : {}),
    // Events fetched but not handled when a test stops the service come back within a test's wait.
    EVENT_ACK_WAIT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
}
