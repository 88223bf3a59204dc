import { type AuthConfig, AuthConfigSchema } from './config.ts';

/**
 * Auth configuration for tests: a fixed identity secret and ADMIN, a cheap argon2 cost, and the
 * given database. Other packages' tests start a real auth service with it.
 */
export function authTestConfig(options: {
  identitySecret: string;
  mongoUrl: string;
  dbName: string;
  admin?: { email: string; password: string };
}): AuthConfig {
  const admin = options.admin ?? { email: 'admin@nrad.test', password: 'admin-password-123' };
  return AuthConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    MONGO_URL: options.mongoUrl,
    MONGO_DB: options.dbName,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    ARGON2_MEMORY_KIB: '8192',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
  });
}
