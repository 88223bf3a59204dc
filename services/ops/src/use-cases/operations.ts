import type { ConsumerState, Operations, QueueState, SecurityAlert, StreamState } from '@nrad/contracts';
import { type Bus, type Logger, withTimeout } from '@nrad/service-kit';
import type { AlertWatch } from '../data/alerts.ts';
import { readJetStream } from '../data/jetstream.ts';
import type { QueueWatch } from '../data/queues.ts';
import { readService } from '../data/services.ts';

export interface OperationsDeps {
  bus: Bus;
  queues: QueueWatch;
  /** The gateway's security alerts (issue 34). */
  alerts: Pick<AlertWatch, 'read'>;
  services: ReadonlyArray<{ name: string; url: string }>;
  streamPrefix: string;
  logger: Logger;
  /** How long one part (NATS, Redis, a service) may take to answer. */
  timeoutMs?: number;
}

/**
 * `GET /api/admin/operations` (the route checks the caller is ADMIN): streams and consumers,
 * queues, services and the gateway's security alerts, read at once. A part that cannot be read is named in `problems` and the
 * rest is still shown.
 */
export async function operations(deps: OperationsDeps): Promise<Operations> {
  const ms = deps.timeoutMs ?? 3000;
  const problems: string[] = [];
  const [jetstream, queues, services, alerts] = await Promise.all([
    withTimeout(readJetStream(deps.bus.jsm, deps.streamPrefix), ms).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'JetStream could not be read');
      problems.push('NATS JetStream could not be read: streams and consumers are not shown.');
      return { streams: [] as StreamState[], consumers: [] as ConsumerState[] };
    }),
    withTimeout(deps.queues.read(), ms).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'queues could not be read');
      problems.push('Redis could not be read: the job queues are not shown.');
      return [] as QueueState[];
    }),
    Promise.all(deps.services.map((s) => readService(s, ms))),
    withTimeout(deps.alerts.read(), ms).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'security alerts could not be read');
      problems.push('Redis could not be read: the security alerts are not shown.');
      return [] as SecurityAlert[];
    }),
  ]);
  for (const s of services) if (!s.ready) problems.push(`The ${s.name} service is not ready.`);
  return {
    at: new Date().toISOString(),
    streams: jetstream.streams,
    consumers: jetstream.consumers,
    queues,
    services,
    alerts,
    problems,
  };
}
