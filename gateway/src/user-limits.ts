import {
  type Organization,
  SECURITY_ALERTS_KEPT,
  SECURITY_ALERTS_KEY,
  type SecurityAlert,
  type SecurityAlertKind,
} from '@nrad/contracts';
import type { AuditActor, AuditTrail, Logger } from '@nrad/service-kit';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { GatewayConfig } from './config.ts';
import type { UserLimitName } from './routes.ts';

/** What a refusal names: "Too many NAMLC checks. Please try again in 42 seconds." */
const LABELS: Record<UserLimitName, string> = {
  'namlc-checks': 'NAMLC checks',
  'link-attempts': 'link attempts',
  searches: 'searches',
  'list-pages': 'list pages',
};

const seconds = (n: number) => `${n} second${n === 1 ? '' : 's'}`;

/** The one who asked: a signed-in user. */
export interface LimitedUser {
  id: string;
  organization: Organization;
}

/** A request over its limit: the seconds until the user's window ends, and what to tell them. */
export interface Refusal {
  retryAfter: number;
  message: string;
}

/** `consume` resolves under the limit and rejects with the same result over it (or an Error). */
async function consume(limiter: RateLimiterRedis, key: string): Promise<{ over: boolean; res: RateLimiterRes }> {
  try {
    return { over: false, res: await limiter.consume(key) };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { over: true, res: err };
    throw err;
  }
}

/**
 * The per-user limits and the security alerts of issue 34, on the gateway's Redis (rate-limiter-
 * flexible's fixed windows, so every gateway replica counts the same):
 * - each signed-in user's requests of a kind per minute (USER_LIMIT_*), keys
 *   `<REDIS_PREFIX>limit:user:<kind>:<userId>`; a request over its limit is refused and recorded
 *   (`rate.limited`);
 * - refusals per user in a window, keys `<REDIS_PREFIX>alert:<kind>:<userId>`: link attempts the
 *   linking service answered 404 (`link-refusals`) and requests refused over a limit
 *   (`rate-limits`). The refusal that reaches the threshold raises one alert (the window's later
 *   ones none): an audit event `security.alert` and an entry at the head of the Redis list
 *   `<REDIS_PREFIX>security-alerts` (the latest SECURITY_ALERTS_KEPT), which the ops service lists.
 */
export class UserLimits {
  private readonly limiters = new Map<UserLimitName, { limiter: RateLimiterRedis; perMinute: number }>();
  private readonly alerts: Record<
    SecurityAlertKind,
    { counter: RateLimiterRedis; count: number; windowSeconds: number }
  >;
  private readonly alertsKey: string;

  constructor(
    private readonly deps: {
      redis: Redis;
      prefix: string;
      config: GatewayConfig;
      audit: Pick<AuditTrail, 'record'>;
      logger: Logger;
    },
  ) {
    const { redis, prefix, config } = deps;
    const perMinute: Record<UserLimitName, number> = {
      'namlc-checks': config.USER_LIMIT_NAMLC_CHECKS_PER_MINUTE,
      'link-attempts': config.USER_LIMIT_LINK_ATTEMPTS_PER_MINUTE,
      searches: config.USER_LIMIT_SEARCHES_PER_MINUTE,
      'list-pages': config.USER_LIMIT_LIST_PAGES_PER_MINUTE,
    };
    for (const [name, points] of Object.entries(perMinute) as Array<[UserLimitName, number]>) {
      if (points === 0) continue; // turned off
      const limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}limit:user:${name}`,
        points,
        duration: 60,
      });
      this.limiters.set(name, { limiter, perMinute: points });
    }
    const counter = (kind: SecurityAlertKind, count: number, windowMinutes: number) => {
      const windowSeconds = Math.max(1, Math.round(windowMinutes * 60));
      return {
        counter: new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `${prefix}alert:${kind}`,
          points: count,
          duration: windowSeconds,
        }),
        count,
        windowSeconds,
      };
    };
    this.alerts = {
      'link-refusals': counter('link-refusals', config.ALERT_LINK_REFUSALS, config.ALERT_LINK_REFUSALS_WINDOW_MINUTES),
      'rate-limits': counter('rate-limits', config.ALERT_RATE_LIMITS, config.ALERT_RATE_LIMITS_WINDOW_MINUTES),
    };
    this.alertsKey = `${prefix}${SECURITY_ALERTS_KEY}`;
  }

  /**
   * Counts a request against the user's limit of its kind. Under it: null. Over it: the request is
   * recorded (`rate.limited`: the kind and the path, never the query string, which can hold names),
   * counted towards a `rate-limits` alert, and its refusal returned (the caller answers 429 and
   * forwards nothing).
   */
  async take(name: UserLimitName, user: LimitedUser, actor: AuditActor, path: string): Promise<Refusal | null> {
    const entry = this.limiters.get(name);
    if (!entry) return null;
    const { over, res } = await consume(entry.limiter, user.id);
    if (!over) return null;
    const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    await this.deps.audit.record(actor, 'rate.limited', [], {
      category: name,
      perMinute: entry.perMinute,
      path: path.slice(0, 500),
      retryAfter,
    });
    await this.countRefusal('rate-limits', user, actor, path);
    return { retryAfter, message: `Too many ${LABELS[name]}. Please try again in ${seconds(retryAfter)}.` };
  }

  /** A link attempt the linking service answered 404, counted towards a `link-refusals` alert. */
  async linkRefused(user: LimitedUser, actor: AuditActor, path: string): Promise<void> {
    await this.countRefusal('link-refusals', user, actor, path);
  }

  /**
   * Counts one refusal of the user's; the one that reaches the threshold in the window raises the
   * alert. An alert that cannot be raised (Redis or the audit trail failing) is logged: the answer
   * to the request does not change for it.
   */
  private async countRefusal(kind: SecurityAlertKind, user: LimitedUser, actor: AuditActor, path: string) {
    const { counter, count, windowSeconds } = this.alerts[kind];
    try {
      const { res } = await consume(counter, user.id);
      if (res.consumedPoints !== count) return;
      const alert: SecurityAlert = {
        at: new Date().toISOString(),
        userId: user.id,
        organization: user.organization,
        kind,
        count,
        windowSeconds,
        path: path.slice(0, 500),
      };
      await this.deps.redis
        .multi()
        .lpush(this.alertsKey, JSON.stringify(alert))
        .ltrim(this.alertsKey, 0, SECURITY_ALERTS_KEPT - 1)
        .exec();
      const { at: _at, ...detail } = alert;
      await this.deps.audit.record(actor, 'security.alert', [], detail);
      this.deps.logger.warn({ alert }, 'security alert');
    } catch (err) {
      this.deps.logger.error({ err, kind, userId: user.id }, 'a security alert could not be counted or raised');
    }
  }
}
