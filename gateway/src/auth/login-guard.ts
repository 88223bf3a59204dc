import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface LoginLimits {
  maxFailures: number;
  failureWindowSeconds: number;
  lockSeconds: number;
  ipMaxFailures: number;
  ipWindowSeconds: number;
}

/** Redis keys name accounts by a hash of the email, so Redis holds no addresses. */
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/**
 * Counters behind the sign-in protections: an account that fails `maxFailures` times within the
 * window is locked for `lockSeconds` (even the right password is refused meanwhile), and an address
 * that fails `ipMaxFailures` times within its window must wait. Counters live in Redis, so every
 * gateway replica sees the same numbers.
 */
export class LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
  ) {}

  private accountKey = (email: string) => `${this.prefix}login:fail:${digest(email.trim().toLowerCase())}`;
  private lockKey = (email: string) => `${this.prefix}login:lock:${digest(email.trim().toLowerCase())}`;
  private ipKey = (ip: string) => `${this.prefix}login:ip:${digest(ip)}`;

  /** Seconds the account stays locked (0: not locked). */
  async accountLockedFor(email: string): Promise<number> {
    return ttlSeconds(await this.redis.pttl(this.lockKey(email)));
  }

  /** Seconds this address must wait (0: may try). */
  async addressBlockedFor(ip: string): Promise<number> {
    const key = this.ipKey(ip);
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return Number(count ?? 0) >= this.limits.ipMaxFailures ? ttlSeconds(ttl) : 0;
  }

  /** Counts a failure; resolves with the seconds of the lock it caused (0: not locked now). */
  async recordFailure(email: string, ip: string): Promise<number> {
    const accountKey = this.accountKey(email);
    const ipKey = this.ipKey(ip);
    const results = await this.redis
      .multi()
      .incr(accountKey)
      .expire(accountKey, Math.ceil(this.limits.failureWindowSeconds), 'NX')
      .incr(ipKey)
      .expire(ipKey, Math.ceil(this.limits.ipWindowSeconds), 'NX')
      .exec();
    const failures = Number(results?.[0]?.[1] ?? 0);
    if (failures < this.limits.maxFailures) return 0;
    const lockSeconds = Math.ceil(this.limits.lockSeconds);
    await this.redis.multi().set(this.lockKey(email), '1', 'EX', lockSeconds).del(accountKey).exec();
    return lockSeconds;
  }

  async recordSuccess(email: string): Promise<void> {
    await this.redis.del(this.accountKey(email));
  }
}

/**
 * A fixed-window counter per address (registrations per hour): resolves with the seconds to wait
 * when over the limit, 0 otherwise. Every call counts.
 */
export async function hitAddressLimit(
  redis: Redis,
  keyPrefix: string,
  ip: string,
  limit: number,
  windowSeconds: number,
): Promise<number> {
  const k = `${keyPrefix}${digest(ip)}`;
  const results = await redis.multi().incr(k).expire(k, Math.ceil(windowSeconds), 'NX').pttl(k).exec();
  const count = Number(results?.[0]?.[1] ?? 0);
  return count > limit ? ttlSeconds(Number(results?.[2]?.[1] ?? 0)) : 0;
}

function ttlSeconds(pttl: number): number {
  return pttl > 0 ? Math.ceil(pttl / 1000) : 0;
}
