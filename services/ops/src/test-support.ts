import { testIdentityEnv } from '@nrad/service-kit/test-identity';
import { type OpsConfig, OpsConfigSchema } from './config.ts';

/**
 * Ops configuration for tests: the given NATS and Redis, the queues under `queuePrefix` (a test
 * namespace), the streams of `streamPrefix` only, and the services to read. The AUDIT stream and
 * prefix default to the namespace's (`t1a2b3c_` → `t1a2b3c_AUDIT`, `t1a2b3c.audit`) and the audit
 * spool's keys to `<queuePrefix>-ops:` and the gateway's alerts to `<queuePrefix>-gw:`, so parallel
 * files never share them.
 */
export function opsTestConfig(options: {
  natsUrl: string;
  redisUrl: string;
  queuePrefix: string;
  queues: readonly string[];
  streamPrefix: string;
  services: Record<string, string>;
  auditStream?: string;
  auditSubjectPrefix?: string;
  redisPrefix?: string;
  /** The gateway's REDIS_PREFIX, where its security alerts are (default: a key of the namespace no one writes). */
  gatewayRedisPrefix?: string;
}): OpsConfig {
  const queuePrefix = options.queuePrefix.replace(/:+$/, '');
  const ns = /^([A-Za-z0-9-]+)_$/.exec(options.streamPrefix)?.[1];
  return OpsConfigSchema.parse({
    ...testIdentityEnv('ops'),
    NATS_URL: options.natsUrl,
    REDIS_URL: options.redisUrl,
    OPS_QUEUES: options.queues.join(','),
    OPS_QUEUE_PREFIX: queuePrefix,
    OPS_STREAM_PREFIX: options.streamPrefix,
    OPS_SERVICES: Object.entries(options.services)
      .map(([name, url]) => `${name}=${url}`)
      .join(','),
    AUDIT_STREAM: options.auditStream ?? `${options.streamPrefix}AUDIT`,
    AUDIT_SUBJECT_PREFIX: options.auditSubjectPrefix ?? (ns ? `${ns}.audit` : `${options.streamPrefix}audit`),
    REDIS_PREFIX: options.redisPrefix ?? `${queuePrefix}-ops:`,
    OPS_GATEWAY_REDIS_PREFIX: options.gatewayRedisPrefix ?? `${queuePrefix}-gw:`,
    LOG_LEVEL: 'silent',
  });
}
