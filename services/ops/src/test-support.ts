import { type OpsConfig, OpsConfigSchema } from './config.ts';

/**
 * Ops configuration for tests: the given NATS and Redis, the queues under `queuePrefix` (a test
 * namespace), the streams of `streamPrefix` only, and the services to read.
 */
export function opsTestConfig(options: {
  identitySecret: string;
  natsUrl: string;
  redisUrl: string;
  queuePrefix: string;
  queues: readonly string[];
  streamPrefix: string;
  services: Record<string, string>;
}): OpsConfig {
  return OpsConfigSchema.parse({
    IDENTITY_SECRET: options.identitySecret,
    NATS_URL: options.natsUrl,
    REDIS_URL: options.redisUrl,
    OPS_QUEUES: options.queues.join(','),
    OPS_QUEUE_PREFIX: options.queuePrefix.replace(/:+$/, ''),
    OPS_STREAM_PREFIX: options.streamPrefix,
    OPS_SERVICES: Object.entries(options.services)
      .map(([name, url]) => `${name}=${url}`)
      .join(','),
    LOG_LEVEL: 'silent',
  });
}
