import type { Logger } from '@nrad/service-kit';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** Where a user's budget stands: probes counted in the window (held ones too), and when it ends. */
export interface BudgetState {
  count: number;
  /** Milliseconds until the window ends (0: no window under way). */
  msBeforeNext: number;
}

/**
 * Each user's budget of probes (docs/adr/0015): a fixed window of rate-limiter-flexible on Redis
 * (`<prefix>probes:<userId>`), so every records instance counts the same. While Redis is not
 * ready the same limits are kept in this process's memory (the library's insurance limiter) and
 * writes go on; a probe counted there is not in Redis afterwards. Also a small cache of answers by
 * key (an upload's plan), kept for a window.
 */
export class ProbeBudget {
  readonly limit: number;
  readonly windowMs: number;
  private readonly limiter: RateLimiterRedis;

  constructor(
    private readonly options: {
      redis: Redis;
      prefix: string;
      limit: number;
      windowMinutes: number;
      logger: Logger;
    },
  ) {
    this.limit = options.limit;
    this.windowMs = options.windowMinutes * 60_000;
    const limits = { points: options.limit, duration: options.windowMinutes * 60 };
    this.limiter = new RateLimiterRedis({
      storeClient: options.redis,
      keyPrefix: `${options.prefix}probes`,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(limits),
      ...limits,
    });
  }

  /**
   * Adds `n` probes (at least 1) to the user's window, whatever its state: the state after. Over
   * the limit is allowed here (the caller compares); the count then says by how much.
   */
  async take(userId: string, n: number): Promise<BudgetState> {
    try {
      return stateOf(await this.limiter.consume(userId, n));
    } catch (err) {
      if (err instanceof RateLimiterRes) return stateOf(err); // over the limit: counted all the same
      throw err;
    }
  }

  /** Takes `n` probes back (a write that held one ran without a probe). Never throws: logged. */
  async give(userId: string, n: number): Promise<void> {
    if (n <= 0) return;
    try {
      await this.limiter.reward(userId, n);
    } catch (err) {
      this.options.logger.warn({ err }, 'a held incident-number probe could not be given back');
    }
  }

  /** The user's window as it stands. */
  async peek(userId: string): Promise<BudgetState> {
    const res = await this.limiter.get(userId);
    return res ? stateOf(res) : { count: 0, msBeforeNext: 0 };
  }

  /** An answer kept under `key` for a window, or undefined (also when Redis cannot be read). */
  async recall(key: string): Promise<string | undefined> {
    try {
      return (await this.options.redis.get(this.cacheKey(key))) ?? undefined;
    } catch (err) {
      this.options.logger.warn({ err }, 'a kept answer could not be read');
      return undefined;
    }
  }

  /** Keeps an answer under `key` for a window (best effort: logged when Redis refuses). */
  async remember(key: string, value: string): Promise<void> {
    try {
      await this.options.redis.set(this.cacheKey(key), value, 'PX', this.windowMs);
    } catch (err) {
      this.options.logger.warn({ err }, 'an answer could not be kept');
    }
  }

  private cacheKey(key: string) {
    return `${this.options.prefix}probe-plans:${key}`;
  }
}

const stateOf = (res: RateLimiterRes): BudgetState => ({
  count: res.consumedPoints,
  msBeforeNext: Math.max(0, res.msBeforeNext),
});

/**
 * The records service's Redis connection: commands fail at once while it is not connected (the
 * budget then counts in memory, ProbeBudget), and a lost connection is retried for ever, logged.
 */
export function connectProbeRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  let failing = false;
  redis.on('error', (err) => {
    if (!failing) logger.warn({ err }, 'Redis unavailable: incident-number probes are counted in memory meanwhile');
    failing = true;
  });
  redis.on('ready', () => {
    if (failing) logger.info('Redis available again');
    failing = false;
  });
  return redis;
}

/** Waits until Redis is ready, at most `ms` (then the budget starts in memory; logged). */
export function redisReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}
