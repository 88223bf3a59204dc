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
}

export const SESSION_COOKIE = 'nrad.sid';

/**
 * Sessions in Redis: httpOnly cookie, SameSite=Lax, Secure whenever the request came over HTTPS
 * (koa-session decides per request), idle timeout by rolling expiry, absolute lifetime checked on
 * every request.
 */
export function sessionMiddleware(
  app: Koa,
  options: { redis: Redis; prefix: string; idleMs: number; absoluteMs: number },
): Middleware {
  const handle = session(
    {
      key: SESSION_COOKIE,
      maxAge: options.idleMs,
      rolling: true,
      httpOnly: true,
      signed: true,
      sameSite: 'lax',
      store: redisSessionStore(options.redis, options.prefix),
      genid: () => randomBytes(32).toString('base64url'),
    },
    app,
  );
  return async function sessions(ctx, next) {
    await handle(ctx, async () => {
      const data = ctx.session as SessionData | null;
      if (data?.user && (!data.issuedAt || Date.now() - data.issuedAt > options.absoluteMs)) {
        ctx.session = null; // past its absolute lifetime: ended server-side and the cookie cleared
      }
      await next();
    });
  };
}

/** The signed-in user of a request, if any. */
export function sessionUser(ctx: Koa.Context): PublicUser | undefined {
  return (ctx.session as SessionData | null)?.user;
}
