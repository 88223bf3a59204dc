import { createServiceApp, type Logger, mongoReadiness } from '@nrad/service-kit';
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
  logger: Logger;
}

/** Builds the auth service: repositories, the password hasher, the ADMIN account, the routes. */
export async function createApp({ config, db, logger }: AuthAppDeps) {
  const users = new UserRepository(db);
  const contactRequests = new ContactRequestRepository(db);
  await Promise.all([users.init(), contactRequests.init()]);
  const passwords = await createPasswordHasher({
    memoryCost: config.ARGON2_MEMORY_KIB,
    timeCost: config.ARGON2_TIME_COST,
    parallelism: config.ARGON2_PARALLELISM,
  });
  const deps: AccountDeps = { users, contactRequests, passwords, logger };
  await ensureAdmin(deps, { email: config.ADMIN_EMAIL, password: config.ADMIN_PASSWORD, name: config.ADMIN_NAME });

  const app = createServiceApp({
    name: 'auth',
    logger,
    identitySecret: config.IDENTITY_SECRET,
    readiness: { mongo: mongoReadiness(db) },
  });
  const api = apiRoutes(deps);
  const internal = internalRoutes(deps);
  app.use(api.routes()).use(api.allowedMethods());
  app.use(internal.routes()).use(internal.allowedMethods());
  return { app, deps };
}
