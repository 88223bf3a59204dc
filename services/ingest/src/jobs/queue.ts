import type { UserIdentity } from '@nrad/contracts';
import type { Logger } from '@nrad/service-kit';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

/** What a job carries: the upload's id (which names its stored file) and who sent it. Never the file. */
export interface IngestJobData {
  uploadId: string;
  fileKey: string;
  uploader: UserIdentity;
}

export interface QueueOptions {
  redisUrl: string;
  name: string;
  prefix: string;
}

/** A Redis connection as BullMQ needs it (commands wait for a reconnect instead of failing). */
export function bullConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/** The `ingest` queue; a job's id is its upload's id, so enqueueing twice adds it once. */
export function ingestQueue(options: QueueOptions) {
  const connection = bullConnection(options.redisUrl);
  const queue = new Queue<IngestJobData>(options.name, {
    connection,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    },
  });
  return {
    queue,
    add: (data: IngestJobData) => queue.add('upload', data, { jobId: data.uploadId }),
    /** Whether Redis answers (readiness). */
    async ping() {
      if ((await connection.ping()) !== 'PONG') throw new Error('no PONG');
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/**
 * The worker: runs `process` for each job, `concurrency` at a time. A job whose worker died
 * (killed, crashed) is taken up again once its lock lapses (`lockMs`), by this or another worker.
 */
export function ingestWorker(
  options: QueueOptions & { concurrency: number; lockMs: number; logger: Logger },
  process: (job: Job<IngestJobData>) => Promise<unknown>,
) {
  const connection = bullConnection(options.redisUrl);
  const worker = new Worker<IngestJobData>(options.name, process, {
    connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockMs,
    stalledInterval: options.lockMs,
    maxStalledCount: 3,
  });
  worker.on('failed', (job, err) =>
    options.logger.warn({ jobId: job?.id, attempts: job?.attemptsMade, err }, 'ingest job failed'),
  );
  worker.on('error', (err) => options.logger.error({ err }, 'ingest worker error'));
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
