import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface LoginLimits {
  /** Failures of one address on one account before it must wait. */
  maxFailures: number;
  failureWindowSeconds: number;
  /** The first wait, doubled with each failure after it… */
  firstDelaySeconds: number;
  /** …up to this. */
  lockSeconds: number;
  ipMaxFailures: number;
  ipWindowSeconds: number;
}

/** Redis keys name accounts and addresses by a hash, so their names are not in the keys. */
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);
const normalEmail = (email: string) => email.trim().toLowerCase();

/** A sign-in that must wait, as ADMIN lists it (issue 37). */
export interface SignInLock {
  /** Names the account and address together (the key of the wait). */
  id: string;
  email: string;
  clientAddress: string;
  /** Failures of this address on this account in the window. */
  failures: number;
  /** When the wait ends (ISO 8601). */
  until: string;
}

/**
 * Counters behind the sign-in protections (issue 37: a stranger cannot lock the owner out). An
 * address that fails `maxFailures` times on one account within the window must wait before it may
 * try that account again — `firstDelaySeconds`, doubled with each further failure, at most
 * `lockSeconds` — while the owner signing in from elsewhere is not held up. An address that fails
 * `ipMaxFailures` times within its window, on any accounts, must wait too. ADMIN sees the waits
 * (`locks`) and can end one (`unlock`). Counters live in Redis, so every gateway replica sees the
 * same numbers.
 */
export class LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
  ) {}

  private pairId = (email: string, ip: string) => digest(`${normalEmail(email)}\n${ip}`);
  private failKey = (id: string) => `${this.prefix}login:fail:${id}`;
  private waitKey = (id: string) => `${this.prefix}login:wait:${id}`;
  private locksKey = () => `${this.prefix}login:locks`;
  private ipKey = (ip: string) => `${this.prefix}login:ip:${digest(ip)}`;

  /** Seconds this address must wait before trying this account again (0: may try). */
  async accountLockedFor(email: string, ip: string): Promise<number> {
    return ttlSeconds(await this.redis.pttl(this.waitKey(this.pairId(email, ip))));
  }

  /** Seconds this address must wait (0: may try). */
  async addressBlockedFor(ip: string): Promise<number> {
    const key = this.ipKey(ip);
    const [count, ttl] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return Number(count ?? 0) >= this.limits.ipMaxFailures ? ttlSeconds(ttl) : 0;
  }

  /** Counts a failure; resolves with the seconds this address must now wait on the account (0: none). */
  async recordFailure(email: string, ip: string): Promise<number> {
    const id = this.pairId(email, ip);
    const failKey = this.failKey(id);
    const ipKey = this.ipKey(ip);
    // The count outlives the longest wait, so failures after a wait keep doubling it.
    const keepSeconds = Math.ceil(Math.max(this.limits.failureWindowSeconds, 2 * this.limits.lockSeconds));
    const results = await this.redis
      .multi()
      .incr(failKey)
      .expire(failKey, keepSeconds)
      .incr(ipKey)
      .expire(ipKey, Math.ceil(this.limits.ipWindowSeconds), 'NX')
      .exec();
    const failures = Number(results?.[0]?.[1] ?? 0);
    if (failures < this.limits.maxFailures) return 0;
    const grown = this.limits.firstDelaySeconds * 2 ** (failures - this.limits.maxFailures);
    const wait = Math.max(1, Math.ceil(Math.min(this.limits.lockSeconds, grown)));
    const lock: SignInLock = {
      id,
      email: normalEmail(email).slice(0, 200),
      clientAddress: ip.slice(0, 100),
      failures,
      until: new Date(Date.now() + wait * 1000).toISOString(),
    };
    await this.redis
      .multi()
      .set(this.waitKey(id), '1', 'EX', wait)
      .hset(this.locksKey(), id, JSON.stringify(lock))
      .exec();
    return wait;
  }

  /** A success from this address clears its count on the account. */
  async recordSuccess(email: string, ip: string): Promise<void> {
    const id = this.pairId(email, ip);
    await this.redis.multi().del(this.failKey(id)).hdel(this.locksKey(), id).exec();
  }

  /** The waits not over yet, the longest-lasting first (ended ones are forgotten as they are read). */
  async locks(): Promise<SignInLock[]> {
    const all = Object.values(await this.redis.hgetall(this.locksKey())).map((v) => JSON.parse(v) as SignInLock);
    const now = Date.now();
    const ended = all.filter((l) => Date.parse(l.until) <= now).map((l) => l.id);
    if (ended.length > 0) await this.redis.hdel(this.locksKey(), ...ended);
    return all.filter((l) => Date.parse(l.until) > now).sort((a, b) => b.until.localeCompare(a.until));
  }

  /** Ends a wait and its count (ADMIN); resolves with what it was, or undefined when there is none. */
  async unlock(id: string): Promise<SignInLock | undefined> {
    if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
    const raw = await this.redis.hget(this.locksKey(), id);
    await this.redis.multi().del(this.waitKey(id), this.failKey(id)).hdel(this.locksKey(), id).exec();
    const lock = raw ? (JSON.parse(raw) as SignInLock) : undefined;
    return lock && Date.parse(lock.until) > Date.now() ? lock : undefined;
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
