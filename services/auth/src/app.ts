import {
  AuditTrail,
  type Bus,
  createServiceApp,
  type Logger,
  MongoAuditSpool,
  mongoReadiness,
} from '@nrad/service-kit';
import type { Connection } from 'mongoose';
import type { AuthConfig } from './config.ts';
import { ContactRequestRepository } from './data/contact-requests.ts';
import { UserRepository } from './data/users.ts';
import { apiRoutes, internalRoutes } from './http/routes.ts';
import { createPasswordHasher } from './passwords.ts';
import { type AccountDeps, ensureAdmin } from './use-cases/accounts.ts';

export interface AuthAppDeps {
  config: AuthConfig;
  db: Connection;
  /** NATS, for the audit trail (the caller connects it and closes it after `stop()`). */
  bus: Bus;
  logger: Logger;
}

/**
 * Builds the auth service: repositories, the password hasher, the ADMIN account, the audit trail
 * (started) and the routes. `stop()` stops the trail; the caller closes the bus and the database.
 */
export async function createApp({ config, db, bus, logger }: AuthAppDeps) {
  const users = new UserRepository(db);
  const contactRequests = new ContactRequestRepository(db);
  await Promise.all([users.init(), contactRequests.init()]);
  const passwords = await createPasswordHasher({
    memoryCost: config.ARGON2_MEMORY_KIB,
    timeCost: config.ARGON2_TIME_COST,
    parallelism: config.ARGON2_PARALLELISM,
  });
  const audit = new AuditTrail({
    bus,
    stream: { AUDIT_STREAM: config.AUDIT_STREAM, AUDIT_SUBJECT_PREFIX: config.AUDIT_SUBJECT_PREFIX },
    service: 'auth',
    logger,
    spool: new MongoAuditSpool(db),
  });
  const deps: AccountDeps = { users, contactRequests, passwords, logger, audit };
  await ensureAdmin(deps, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, name: config.ADMIN_NAME });
  await audit.start();

  const app = createServiceApp({
    name: 'auth',
    logger,
    identityKeys: config.IDENTITY_PUBLIC_KEYS,
    // NATS is not a readiness condition: while it is down, audit events wait in the spool.
    readiness: { mongo: mongoReadiness(db) },
    audit,
  });
  const api = apiRoutes(deps);
  const internal = internalRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());
  app.use(internal.routes()).use(internal.allowedMethods());
  return { app, deps, audit, stop: () => audit.stop() };
}
