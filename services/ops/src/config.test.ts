import { TEST_PUBLIC_KEYS } from '@nrad/service-kit/test-identity';
import { describe, expect, it } from 'vitest';
import { OpsConfigSchema } from './config.ts';

const base = {
  IDENTITY_PUBLIC_KEYS: TEST_PUBLIC_KEYS,
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

describe('ops configuration', () => {
  it("defaults: port 8087, the ingest and report queues under bull, every stream, no services, the gateway's alerts", () => {
    expect(OpsConfigSchema.parse(base)).toMatchObject({
      PORT: 8087,
      OPS_QUEUES: ['ingest', 'report'],
      OPS_QUEUE_PREFIX: 'bull',
      OPS_STREAM_PREFIX: '',
      OPS_SERVICES: [],
      OPS_GATEWAY_REDIS_PREFIX: 'nrad:gateway:',
    });
  });

  it('reads the services as name=URL pairs, and refuses anything else with a clear message', () => {
    const parsed = OpsConfigSchema.parse({
      ...base,
      OPS_SERVICES: ' auth=http://auth:8081/ , stats=http://stats:8084',
    });
    expect(parsed.OPS_SERVICES).toEqual([
      { name: 'auth', url: 'http://auth:8081' },
      { name: 'stats', url: 'http://stats:8084' },
    ]);
    const bad = OpsConfigSchema.safeParse({ ...base, OPS_SERVICES: 'auth:http://auth:8081' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe('"auth:http://auth:8081" is not name=http(s) URL');
    expect(OpsConfigSchema.safeParse({ ...base, OPS_QUEUES: 'ingest,bad name' }).success).toBe(false);
  });
});
