import { testNamespace } from '@nrad/infra/harness';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEvents, RedisAuditSpool } from './audit.ts';

const t = testNamespace();
const redis = new Redis(t.redisUrl);
afterAll(() => redis.disconnect());

const actor = { userId: null, organization: null, requestId: 'r', clientAddress: '10.0.0.1' };

describe('the Redis audit spool (real redis-server)', () => {
  it('gives back what was put, oldest first, each once, until removed', async () => {
    const spool = new RedisAuditSpool(redis, `${t.redisPrefix}gw:`);
    const events = Array.from({ length: 5 }, (_, n) =>
      auditEvents('gateway', 'sign-in-failed', actor, [], { detail: { n } }),
    ).flat();
    await spool.put(events.slice(0, 3));
    await spool.put(events.slice(3));
    await spool.put(events.slice(0, 1)); // put again: keeps its place, stored once
    expect((await spool.take(10)).map((e) => e.detail?.n)).toEqual([0, 1, 2, 3, 4]);
    expect(await spool.take(2)).toEqual(events.slice(0, 2));
    await spool.remove(events.slice(0, 2).map((e) => e.id));
    expect((await spool.take(10)).map((e) => e.detail?.n)).toEqual([2, 3, 4]);
    await spool.remove(events.map((e) => e.id));
    expect(await spool.take(10)).toEqual([]);
  });
});
