import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type AuthConfig, AuthConfigSchema } from './config.ts';

/**
 * Auth configuration for tests: a fixed identity secret and ADMIN, a cheap argon2 cost, and the
 * given database and NATS. Other packages' tests start a real auth service with it. The AUDIT
 * stream and prefix default to the namespace's (`t1a2b3c_auth` → `t1a2b3c_AUDIT`, `t1a2b3c.audit`,
 * else `<db>_AUDIT`, `<db>_audit`): what an audit writer of the same namespace reads, and never
 * another test file's.
 */
export function authTestConfig(options: {
  mongoUrl: string;
  natsUrl: string;
  dbName: string;
  admin?: { email: string; password: string };
  auditStream?: string;
  auditSubjectPrefix?: string;
}): AuthConfig {
  const admin = options.admin ?? { email: 'admin@nrad.test', password: 'admin-password-123' };
  const audit = auditNamesBeside(options.dbName);
  return AuthConfigSchema.parse({
    ...testIdentityEnv('auth'),
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    NATS_URL: options.natsUrl,
    AUDIT_STREAM: options.auditStream ?? audit.stream,
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix ?? audit.subjectPrefix,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    ARGON2_MEMORY_KIB: '8192',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
  });
}

/** The AUDIT stream and prefix of a test database's namespace (`<ns>_<name>` → `<ns>_AUDIT`, `<ns>.audit`). */
function auditNamesBeside(dbName: string) {
  const ns = /^([A-Za-z0-9-]+)_[A-Za-z0-9_-]+$/.exec(dbName)?.[1];
  return ns
    ? { stream: `${ns}_AUDIT`, subjectPrefix: `${ns}.audit` }
    : { stream: `${dbName}_AUDIT`, subjectPrefix: `${dbName}_audit` };
}
