import type { ReportStage, UserIdentity } from '@nrad/contracts';
import type { Logger } from '@nrad/service-kit';
import { bullConnection, pingRedis, type QueueOptions, startWorker } from '@nrad/service-kit/queues';
import { type Job, Queue, QueueEvents } from 'bullmq';

/** What a job carries: the report's id (also the job's), who asked and what for. Never figures. */
export interface ReportJobData {
  reportId: string;
  requester: UserIdentity;
  parameters: string | null;
  /**
   * The gateway's grant for the requester (identity.ts): worth nothing without the report
   * service's own key, which signs every question asked with it.
   */
  grant?: string;
}

/** What a finished job returns: the id of the stored report. */
export interface ReportJobResult {
  reportId: string;
}

/** A job's progress as the worker reports it. */
export interface ReportProgress {
  stage: ReportStage;
}

export interface ReportQueueOptions extends QueueOptions {
  attempts: number;
}

/**
 * The `report` queue and its events (a job's end arrives at once, no polling). A job's id is its
 * report's id, so a job retried after a crash stores the same report once.
 */
export function reportQueue(options: ReportQueueOptions) {
  const connection = bullConnection(options.redisUrl);
  const queue = new Queue<ReportJobData, ReportJobResult>(options.name, {
    connection,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: 2000 },
      // A finished job is looked up for its state for a day; the report itself is in the store.
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
    },
  });
  // QueueEvents reads on a copy of the connection it is given (BullMQ duplicates it for its
  // blocking reads): the one given is still ours to close.
  const eventsConnection = bullConnection(options.redisUrl);
  const events = new QueueEvents(options.name, { connection: eventsConnection, prefix: options.prefix });
  return {
    queue,
    events,
    add: (data: ReportJobData) => queue.add('report', data, { jobId: data.reportId }),
    get: (jobId: string) => queue.getJob(jobId) as Promise<Job<ReportJobData, ReportJobResult> | undefined>,
    /** Jobs not ended yet (waiting, delayed for a retry, or being written) of one user. */
    async pendingOf(userId: string): Promise<number> {
      const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
      return jobs.filter((j) => j?.data?.requester?.userId === userId).length;
    },
    /** Whether Redis answers (readiness). */
    ping: () => pingRedis(connection),
    async close() {
      await events.close();
      eventsConnection.disconnect();
      await queue.close();
      connection.disconnect();
    },
  };
}
export type ReportQueue = ReturnType<typeof reportQueue>;

/** The worker: runs `process` for each job, `concurrency` at a time (startWorker). */
export function reportWorker(
  options: QueueOptions & { concurrency: number; lockMs: number; logger: Logger },
  process: (job: Job<ReportJobData, ReportJobResult>) => Promise<ReportJobResult>,
) {
  return startWorker({ ...options, kind: 'report', maxStalledCount: 2 }, process);
}
