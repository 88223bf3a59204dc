import { routesOwnedBy } from '@nrad/contracts';
import { openApiDocument } from '@nrad/contracts/openapi';
import { createLogger, declaredRoutes, mountedRoutes } from '@nrad/service-kit';
import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { parse, validate } from '@readme/openapi-parser';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../src/app.ts';
import { GatewayConfigSchema } from '../src/config.ts';

/** A gateway built without its infrastructure: nothing below connects (Redis is lazy). */
function offlineGateway() {
  const url = 'http://127.0.0.1:9';
  const config = GatewayConfigSchema.parse({
    REDIS_URL: 'redis://127.0.0.1:9',
    NATS_URL: 'nats://127.0.0.1:9',
    ...testIdentityEnv('gateway'),
    SESSION_SECRET: 's'.repeat(40),
    AUTH_URL: url,
    RECORDS_URL: url,
    LINKING_URL: url,
    STATS_URL: url,
    INGEST_URL: url,
    REPORT_URL: url,
    OPS_URL: url,
    AUDIT_URL: url,
  });
  const redis = new Redis(config.REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
  const logger = createLogger({ name: 'gateway-routes-test', level: 'silent' });
  const gw = createGateway({ config, redis, logger, audit: { record: async () => {} } });
  afterAll(async () => {
    await gw.close();
    redis.disconnect();
  });
  return gw;
}

const gw = offlineGateway();

describe("the gateway's own routes", () => {
  it('are the declared ones, each mounted once (the catch-all to the services aside)', () => {
    const mounted = mountedRoutes(gw.routers.api).filter((r) => !r.endsWith(' /api/{*rest}'));
    expect(mounted.sort()).toEqual(declaredRoutes(routesOwnedBy('gateway')).sort());
  });
});

describe('the OpenAPI document', () => {
  it('is served to anyone at GET /api/openapi.json', async () => {
    const res = await request(gw.app.callback()).get('/api/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toContain('/api/records/{id}');
  });

  it('is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    const doc = openApiDocument();
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors.slice(0, 3)).toEqual([]);
    expect(result.valid).toBe(true);
    await expect(parse(structuredClone(doc) as never)).resolves.toBeTruthy();
  });
});
