import Router from '@koa/router';
import {
  ADMIN_ACCESS_DENIED,
  ERROR_CODES,
  LoginRequestSchema,
  type PublicUser,
  routes,
  SIGN_IN_LOCK_NOT_FOUND,
  type SignInLocks,
  type UserResponse,
} from '@nrad/contracts';
import {
  AppError,
  type AuditActor,
  type AuditTrail,
  jsonBody,
  type Logger,
  mountRoute,
  parse,
  requireAllAgencies,
  unauthenticated,
} from '@nrad/service-kit';
import type Koa from 'koa';
import { type SessionData, sessionUser } from '../session/session.ts';
import { type AuthClient, UpstreamUnavailableError } from './auth-client.ts';
import type { LoginGuard } from './login-guard.ts';

export interface SessionRouteDeps {
  auth: AuthClient;
  guard: LoginGuard;
  logger: Logger;
  /** Sign-ins, failures, lockouts and sign-outs (issue 21), recorded before the answer. */
  audit: Pick<AuditTrail, 'record'>;
}

/** Who signs in or out: the user when known, else nobody yet (a failed attempt names the email). */
export function actorOf(ctx: Koa.Context, user?: Pick<PublicUser, 'id' | 'organization'>): AuditActor {
  return {
    userId: user?.id ?? null,
    organization: user?.organization ?? null,
    requestId: (ctx.state.requestId as string | undefined) ?? null,
    clientAddress: ctx.ip || null,
  };
}

/** The account an attempt named, as the audit trail keeps it (never the password). */
const attempted = (email: string) => email.trim().toLowerCase().slice(0, 200);

const minutesText = (seconds: number) => {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
};

const lockedError = (seconds: number) =>
  new AppError(
    ERROR_CODES.accountLocked,
    `Sign-in to this account from your network is locked after too many failed sign-in attempts. Try again in ${minutesText(seconds)}.`,
  );

const unavailable = () =>
  new AppError(ERROR_CODES.unavailable, 'Sign-in is temporarily unavailable. Please try again shortly.');

/** Signs in: a new session id, the user in the session. */
async function startSession(ctx: Koa.Context, user: PublicUser) {
  // A new id at sign-in: a session id planted before sign-in (fixation) is worth nothing after.
  await ctx.session?.regenerate();
  const data = ctx.session as unknown as SessionData;
  data.user = user;
  data.issuedAt = Date.now();
  data.touchedAt = data.issuedAt;
}

/** The gateway's own paths of SPEC §7: login, logout and the current user. */
export function sessionRoutes(deps: SessionRouteDeps) {
  const router = new Router({ prefix: '/auth' }); // mounted under the /api router
  // Only sign-in reads a body here. Not `router.use`: that would also run for the parent router's
  // catch-all under /api/auth and swallow bodies that must stream to a service unread.
  const readJson = jsonBody({ limit: '10kb' });

  mountRoute(
    router,
    routes.session.login,
    async (ctx) => {
      const ip = ctx.ip;
      const waitIp = await deps.guard.addressBlockedFor(ip);
      if (waitIp > 0) {
        await deps.audit.record(actorOf(ctx), 'sign-in-failed', [], { reason: 'address-blocked' });
        ctx.set('Retry-After', String(waitIp));
        throw new AppError(
          ERROR_CODES.rateLimited,
          `Too many failed sign-in attempts from your network. Try again in ${minutesText(waitIp)}.`,
        );
      }
      const { email, password } = parse(LoginRequestSchema, ctx.request.body);
      const locked = await deps.guard.accountLockedFor(email, ip);
      if (locked > 0) {
        await deps.audit.record(actorOf(ctx), 'sign-in-failed', [], { email: attempted(email), reason: 'locked' });
        ctx.set('Retry-After', String(locked));
        throw lockedError(locked);
      }
      let result: Awaited<ReturnType<AuthClient['verifyCredentials']>>;
      try {
        result = await deps.auth.verifyCredentials(email, password, ctx.state.requestId);
      } catch (err) {
        if (err instanceof UpstreamUnavailableError) {
          deps.logger.error({ err }, 'credential check failed');
          throw unavailable();
        }
        throw err;
      }
      if (!result.ok) {
        const lockedNow = await deps.guard.recordFailure(email, ip);
        deps.logger.warn({ locked: lockedNow > 0 }, 'failed sign-in');
        await deps.audit.record(actorOf(ctx), 'sign-in-failed', [], {
          email: attempted(email),
          reason: 'invalid-credentials',
        });
        if (lockedNow > 0) {
          await deps.audit.record(actorOf(ctx), 'lockout', [], { email: attempted(email), seconds: lockedNow });
          ctx.set('Retry-After', String(lockedNow));
          throw lockedError(lockedNow);
        }
        throw new AppError(ERROR_CODES.invalidCredentials, 'Invalid credentials');
      }
      await deps.guard.recordSuccess(email, ip);
      await deps.audit.record(actorOf(ctx, result.user), 'sign-in');
      await startSession(ctx, result.user);
      deps.logger.info({ userId: result.user.id, organization: result.user.organization }, 'signed in');
      return { user: result.user } satisfies UserResponse;
    },
    { before: [readJson], outer: '/api' },
  );

  mountRoute(
    router,
    routes.session.logout,
    async (ctx) => {
      const user = sessionUser(ctx);
      if (user) await deps.audit.record(actorOf(ctx, user), 'sign-out');
      ctx.session = null; // destroyed in Redis, cookie cleared: a replayed cookie now finds nothing
      if (user) deps.logger.info({ userId: user.id }, 'signed out');
      return { message: 'Successfully logged out' as const };
    },
    { outer: '/api' },
  );

  mountRoute(
    router,
    routes.session.user,
    async (ctx) => {
      const current = await refreshSessionUser(ctx, deps);
      if (!current) throw unauthenticated('Not signed in');
      return { user: current } satisfies UserResponse;
    },
    { outer: '/api' },
  );

  return router;
}

/**
 * ADMIN's view of the sign-in waits (issue 37): `GET /api/admin/sign-in-locks` lists them (a read
 * recorded as `admin`), `DELETE /api/admin/sign-in-locks/{id}` ends one at once (recorded as
 * `admin`, with the account and the address); anyone else gets SPEC's 403.
 */
export function signInLockRoutes(deps: Pick<SessionRouteDeps, 'guard' | 'audit'>) {
  const router = new Router({ prefix: '/admin' }); // mounted under the /api router
  const adminOf = (ctx: Koa.Context) => {
    const user = sessionUser(ctx);
    if (!user) throw unauthenticated('Not signed in');
    requireAllAgencies(user, ADMIN_ACCESS_DENIED);
    return user;
  };
  mountRoute(
    router,
    routes.session.locks,
    async (ctx) => {
      const admin = adminOf(ctx);
      const items = await deps.guard.locks();
      await deps.audit.record(actorOf(ctx, admin), 'admin', [], { what: 'sign-in-locks' });
      return { items } satisfies SignInLocks;
    },
    { outer: '/api' },
  );
  mountRoute(
    router,
    routes.session.unlock,
    async (ctx) => {
      const admin = adminOf(ctx);
      const lock = await deps.guard.unlock(ctx.params.id);
      if (!lock) throw new AppError(ERROR_CODES.notFound, SIGN_IN_LOCK_NOT_FOUND);
      await deps.audit.record(actorOf(ctx, admin), 'admin', [], {
        what: 'sign-in-unlock',
        email: lock.email,
        clientAddress: lock.clientAddress,
      });
      ctx.status = 204;
      return undefined;
    },
    { outer: '/api' },
  );
  return router;
}

/**
 * Reads the signed-in user's account afresh into the session (a renamed user shows the new name in
 * the header and in identity tokens) and resolves with it. A removed account ends the session
 * (null). When the auth service cannot answer, the session's copy stands.
 */
export async function refreshSessionUser(
  ctx: Koa.Context,
  deps: Pick<SessionRouteDeps, 'auth' | 'logger'>,
): Promise<PublicUser | null> {
  const user = sessionUser(ctx);
  if (!user) return null;
  let current: PublicUser | null;
  try {
    current = await deps.auth.getUser(user.id, ctx.state.requestId);
  } catch (err) {
    if (!(err instanceof UpstreamUnavailableError)) throw err;
    deps.logger.warn({ err }, 'auth service unavailable; keeping the session copy of the user');
    return user;
  }
  if (!current) {
    ctx.session = null;
    return null;
  }
  (ctx.session as unknown as SessionData).user = current;
  return current;
}
