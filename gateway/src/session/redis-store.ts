import type { Redis } from 'ioredis';

/**
 * koa-session's external store on Redis: the cookie holds only a random session id; the session
 * lives server-side with a TTL, so logout (or expiry) really ends it and a replayed cookie finds
 * nothing.
 */
export function redisSessionStore(redis: Redis, prefix: string) {
  const key = (sid: string) => `${prefix}sess:${sid}`;
  return {
    async get(sid: string) {
      const raw = await redis.get(key(sid));
      if (!raw) return undefined;
      try {
        return JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    },
    async set(sid: string, session: unknown, maxAgeMs: number) {
      await redis.set(key(sid), JSON.stringify(session), 'PX', Math.max(1, Math.round(maxAgeMs)));
    },
    async destroy(sid: string) {
      await redis.del(key(sid));
    },
  };
}
