import { type AuditEvent, AuditEventSchema } from '@nrad/contracts';
import type { AuditSpool } from '@nrad/service-kit';
import type { Redis } from 'ioredis';

/**
 * The gateway's audit spool (it has no database of its own): sign-in and sign-out events that NATS
 * did not take wait in Redis — each event's JSON in a hash by id, their order in a sorted set —
 * until the trail's relay publishes them (services/kit audit.ts).
 */
export class RedisAuditSpool implements AuditSpool {
  private readonly order: string;
  private readonly events: string;
  private counter = 0;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.order = `${prefix}audit:spool:order`;
    this.events = `${prefix}audit:spool:events`;
  }

  async put(events: readonly AuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    const multi = this.redis.multi();
    for (const e of events) {
      // NX: an event put again keeps its first place.
      multi.zadd(this.order, 'NX', Date.now() * 1000 + (this.counter++ % 1000), e.id);
      multi.hset(this.events, e.id, JSON.stringify(e));
    }
    const results = await multi.exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('the audit spool write was discarded');
  }

  async take(limit: number): Promise<AuditEvent[]> {
    const ids = await this.redis.zrange(this.order, 0, String(limit - 1));
    if (ids.length === 0) return [];
    const texts = await this.redis.hmget(this.events, ...ids);
    return texts.flatMap((text) => (text ? [AuditEventSchema.parse(JSON.parse(text))] : []));
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.redis
      .multi()
      .zrem(this.order, ...ids)
      .hdel(this.events, ...ids)
      .exec();
  }
}
