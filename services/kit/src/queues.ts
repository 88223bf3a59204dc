import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from './logger.ts';

/**
 * BullMQ as the services with job queues use it (`@nrad/service-kit/queues`, a subpath: services
 * without queues bundle none of it).
 */

/** Where a queue is: Redis, the queue's name, and the prefix of its keys (tests: a namespace). */
export interface QueueOptions {
  redisUrl: string;
  name: string;
  prefix: string;
}

/** A Redis connection as BullMQ needs it (commands wait for a reconnect instead of failing). */
export function bullConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/** Whether Redis answers on a connection (a readiness check). */
export async function pingRedis(connection: Redis): Promise<void> {
  if ((await connection.ping()) !== 'PONG') throw new Error('no PONG');
}

/**
 * A worker on its own connection: runs `process` for each job, `concurrency` at a time. A job
 * whose worker died (killed, crashed) is taken up again once its lock lapses (`lockMs`), by this
 * or another worker, at most `maxStalledCount` times. Failures are logged as `<kind> job failed`.
 */
export function startWorker<Data, Result>(
  options: QueueOptions & {
    kind: string;
    concurrency: number;
    lockMs: number;
    maxStalledCount: number;
    logger: Logger;
  },
  process: (job: Job<Data, Result>) => Promise<Result>,
) {
  const connection = bullConnection(options.redisUrl);
  const worker = new Worker<Data, Result>(options.name, process, {
    connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockMs,
    stalledInterval: options.lockMs,
    maxStalledCount: options.maxStalledCount,
  });
  worker.on('failed', (job, err) =>
    options.logger.warn({ jobId: job?.id, attempts: job?.attemptsMade, err }, `${options.kind} job failed`),
  );
  worker.on('error', (err) => options.logger.error({ err }, `${options.kind} worker error`));
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
