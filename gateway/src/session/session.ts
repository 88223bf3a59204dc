import { randomBytes } from 'node:crypto';
import type { PublicUser } from '@nrad/contracts';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import session from 'koa-session';
import { redisSessionStore } from './redis-store.ts';

/** What a signed-in session holds. */
export interface SessionData {
  user?: PublicUser;
  /** When the user signed in (ms since epoch): the absolute lifetime counts from here. */
  issuedAt?: number;
  /** When the session was last written back with a fresh idle expiry (ms since epoch). */
  touchedAt?: number;
}

/**
 * How often a signed-in session's idle expiry is pushed back (ms): a tenth of the idle timeout, at
 * most a minute. Writing the session back on every request (koa-session's `rolling`) cost each
 * request a Redis write of the whole session, about 1 ms through the gateway (issue 38); written at
 * most this often, a session still ends the idle timeout after its last request, less at most this
 * interval — never later.
 */
export const touchIntervalMs = (idleMs: number) => Math.min(60_000, idleMs / 10);

export const SESSION_COOKIE = 'nrad.sid';

/**
 * Sessions in Redis: httpOnly cookie, SameSite=Lax, Secure whenever the request came over HTTPS
 * (koa-session decides per request), idle timeout by an expiry pushed back as the session is used
 * (touchIntervalMs), absolute lifetime checked on every request.
 */
export function sessionMiddleware(
  app: Koa,
  options: { redis: Redis; prefix: string; idleMs: number; absoluteMs: number },
): Middleware {
  const handle = session(
    {
      key: SESSION_COOKIE,
      maxAge: options.idleMs,
      rolling: false, // written when changed, or touched (below)
      httpOnly: true,
      signed: true,
      sameSite: 'lax',
      store: redisSessionStore(options.redis, options.prefix),
      genid: () => randomBytes(32).toString('base64url'),
    },
    app,
  );
  const touchMs = touchIntervalMs(options.idleMs);
  return async function sessions(ctx, next) {
    await handle(ctx, async () => {
      const data = ctx.session as SessionData | null;
      const now = Date.now();
      if (data?.user && (!data.issuedAt || now - data.issuedAt > options.absoluteMs)) {
        ctx.session = null; // past its absolute lifetime: ended server-side and the cookie cleared
      } else if (data?.user && now - (data.touchedAt ?? 0) >= touchMs) {
        data.touchedAt = now; // changed, so koa-session writes it with a new expiry (store and cookie)
      }
      await next();
    });
  };
}

/** The signed-in user of a request, if any. */
export function sessionUser(ctx: Koa.Context): PublicUser | undefined {
  return (ctx.session as SessionData | null)?.user;
}
