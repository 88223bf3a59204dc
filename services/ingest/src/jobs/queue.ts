import type { UserIdentity } from '@nrad/contracts';
import type { Logger } from '@nrad/service-kit';
import { bullConnection, pingRedis, type QueueOptions, startWorker } from '@nrad/service-kit/queues';
import { type Job, Queue } from 'bullmq';

/**
 * What a job carries: the upload's id (which names its stored file), who sent it, and the upload
 * request's id and client address (the audit trail's, for the events the worker records; absent
 * from jobs queued before they were kept). Never the file.
 */
export interface IngestJobData {
  uploadId: string;
  fileKey: string;
  uploader: UserIdentity;
  requestId?: string | null;
  clientAddress?: string | null;
  /**
   * The gateway's grant for the uploader (service-kit identity.ts, issue 37): the job creates the
   * rows on their behalf with it, worth nothing without the ingest service's key. Absent from jobs
   * queued before it was kept (such a job ends asking for the file again).
   */
  grant?: string;
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
    ping: () => pingRedis(connection),
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/** The worker: runs `process` for each job, `concurrency` at a time (startWorker). */
export function ingestWorker(
  options: QueueOptions & { concurrency: number; lockMs: number; logger: Logger },
  process: (job: Job<IngestJobData>) => Promise<unknown>,
) {
  return startWorker({ ...options, kind: 'ingest', maxStalledCount: 3 }, process);
}
