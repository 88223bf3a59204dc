import { randomBytes } from 'node:crypto';
import {
  IDENTITY_HEADER,
  OperationsSchema,
  SECURITY_ALERTS_KEPT,
  SECURITY_ALERTS_KEY,
  type SecurityAlert,
  type UserIdentity,
} from '@nrad/contracts';
import { testNamespace } from '@nrad/infra/harness';
import { connectBus, createLogger } from '@nrad/service-kit';
import { testToken } from '@nrad/service-kit/test-identity';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { opsTestConfig } from '../src/test-support.ts';

/**
 * The gateway's security alerts in `GET /api/admin/operations` (issue 34): read from the Redis list
 * the gateway keeps under its prefix (here written as the gateway writes it), newest first.
 */
const t = testNamespace();
const gatewayPrefix = `${t.redisPrefix}gw:`;
const config = opsTestConfig({
  natsUrl: t.natsUrl,
  redisUrl: t.redisUrl,
  queuePrefix: `${t.redisPrefix}bull`,
  queues: ['ingest'],
  streamPrefix: t.stream(''),
  services: {},
  gatewayRedisPrefix: gatewayPrefix,
});
const logger = createLogger({ name: 'ops-alerts-test', level: 'silent' });
const bus = await connectBus({ url: config.NATS_URL, name: 'ops-alerts-test' });
const ops = await createApp({ config, bus, logger });
/** The service's own Redis connection (the one it reads the alerts on), to write them as the gateway does. */
const redis = ops.queues.connection;
afterAll(async () => {
  await redis.del(`${gatewayPrefix}${SECURITY_ALERTS_KEY}`);
  await ops.stop();
  await bus.nc.close();
});

const admin: UserIdentity = {
  kind: 'user',
  userId: randomBytes(12).toString('hex'),
  name: 'Admin',
  organization: 'ADMIN',
  role: 'Administrator',
};

async function operations() {
  const res = await request(ops.app.callback())
    .get('/api/admin/operations')
    .set(IDENTITY_HEADER, await testToken(admin))
    .expect(200);
  return OperationsSchema.parse(res.body);
}

const alert = (n: number, overrides: Partial<SecurityAlert> = {}): SecurityAlert => ({
  at: new Date(Date.UTC(2026, 10, 27, 9, 0, n)).toISOString(),
  userId: `user-${n}`,
  organization: 'FIA',
  kind: 'link-refusals',
  count: 10,
  windowSeconds: 600,
  path: '/api/records/link',
  ...overrides,
});

describe('security alerts in the operations snapshot', () => {
  it('is an empty list when the gateway has raised none', async () => {
    const snapshot = await operations();
    expect(snapshot.alerts).toEqual([]);
    expect(snapshot.problems).toEqual([]);
  });

  it("lists the gateway's alerts newest first, leaving out what is not an alert", async () => {
    const key = `${gatewayPrefix}${SECURITY_ALERTS_KEY}`;
    // The gateway pushes each new alert at the head of the list.
    await redis.lpush(key, JSON.stringify(alert(1)));
    await redis.lpush(key, 'not json');
    await redis.lpush(key, JSON.stringify({ ...alert(2), kind: 'something-else' }));
    await redis.lpush(
      key,
      JSON.stringify(alert(3, { organization: 'BPS', kind: 'rate-limits', count: 3, path: '/api/records/search' })),
    );
    const { alerts, problems } = await operations();
    expect(alerts).toEqual([
      alert(3, { organization: 'BPS', kind: 'rate-limits', count: 3, path: '/api/records/search' }),
      alert(1),
    ]);
    expect(problems).toEqual([]);
  });

  it(`shows at most the ${SECURITY_ALERTS_KEPT} newest`, async () => {
    const key = `${gatewayPrefix}${SECURITY_ALERTS_KEY}`;
    await redis.del(key);
    for (let n = 0; n < SECURITY_ALERTS_KEPT + 5; n++) await redis.lpush(key, JSON.stringify(alert(n % 60)));
    const { alerts } = await operations();
    expect(alerts).toHaveLength(SECURITY_ALERTS_KEPT);
  });
});
