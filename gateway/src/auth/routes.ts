import Router from '@koa/router';
import { ERROR_CODES, LoginRequestSchema, type PublicUser, type UserResponse } from '@nrad/contracts';
import { AppError, type Logger, parse, unauthenticated } from '@nrad/service-kit';
import type Koa from 'koa';
import { type SessionData, sessionUser } from '../session/session.ts';
import { type AuthClient, UpstreamUnavailableError } from './auth-client.ts';
import type { LoginGuard } from './login-guard.ts';

export interface SessionRouteDeps {
  auth: AuthClient;
  guard: LoginGuard;
  logger: Logger;
}

const minutesText = (seconds: number) => {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return `${m} minute${m === 1 ? '' : 's'}`;
};

const unavailable = () =>
  new AppError(ERROR_CODES.unavailable, 'Sign-in is temporarily unavailable. Please try again shortly.');

/** Signs in: a new session id, the user in the session. */
async function startSession(ctx: Koa.Context, user: PublicUser) {
  // A new id at sign-in: a session id planted before sign-in (fixation) is worth nothing after.
  await ctx.session?.regenerate();
  const data = ctx.session as unknown as SessionData;
  data.user = user;
  data.issuedAt = Date.now();
}

/** The gateway's own paths of SPEC §7: login, logout and the current user. */
export function sessionRoutes(deps: SessionRouteDeps) {
  const router = new Router({ prefix: '/auth' }); // mounted under the /api router

  router.post('/login', async (ctx) => {
    const ip = ctx.ip;
    const waitIp = await deps.guard.addressBlockedFor(ip);
    if (waitIp > 0) {
      ctx.set('Retry-After', String(waitIp));
      throw new AppError(
        ERROR_CODES.rateLimited,
        `Too many failed sign-in attempts from your network. Try again in ${minutesText(waitIp)}.`,
      );
    }
    const { email, password } = parse(LoginRequestSchema, ctx.request.body);
    const locked = await deps.guard.accountLockedFor(email);
    if (locked > 0) {
      throw new AppError(
        ERROR_CODES.accountLocked,
        `This account is locked after too many failed sign-in attempts. Try again in ${minutesText(locked)}.`,
      );
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
      if (lockedNow > 0) {
        throw new AppError(
          ERROR_CODES.accountLocked,
          `This account is locked after too many failed sign-in attempts. Try again in ${minutesText(lockedNow)}.`,
        );
      }
      throw new AppError(ERROR_CODES.invalidCredentials, 'Invalid credentials');
    }
    await deps.guard.recordSuccess(email);
    await startSession(ctx, result.user);
    deps.logger.info({ userId: result.user.id, organization: result.user.organization }, 'signed in');
    ctx.body = { user: result.user } satisfies UserResponse;
  });

  router.post('/logout', async (ctx) => {
    const user = sessionUser(ctx);
    ctx.session = null; // destroyed in Redis, cookie cleared: a replayed cookie now finds nothing
    if (user) deps.logger.info({ userId: user.id }, 'signed out');
    ctx.body = { message: 'Successfully logged out' };
  });

  router.get('/user', async (ctx) => {
    const user = sessionUser(ctx);
    if (!user) throw unauthenticated('Not signed in');
    // Read the account afresh: a renamed user shows the new name, a removed one is signed out.
    let current: PublicUser | null = user;
    try {
      current = await deps.auth.getUser(user.id, ctx.state.requestId);
    } catch (err) {
      if (!(err instanceof UpstreamUnavailableError)) throw err;
      deps.logger.warn({ err }, 'auth service unavailable; answering from the session');
    }
    if (!current) {
      ctx.session = null;
      throw unauthenticated('Not signed in');
    }
    (ctx.session as unknown as SessionData).user = current;
    ctx.body = { user: current } satisfies UserResponse;
  });

  return router;
}
