import type { QueueState } from '@nrad/contracts';
import { bullConnection } from '@nrad/service-kit/queues';
import { Queue } from 'bullmq';

/** How many of a queue's latest failed jobs the JSON names (the queue board shows them all). */
export const RECENT_FAILURES = 10;

/**
 * The BullMQ queues ops watches, on one Redis connection: their counts and latest failures for
 * the JSON, and the Queue objects for the queue board (bull-board).
 */
export class QueueWatch {
  readonly connection;
  readonly queues: Queue[];

  constructor(options: { redisUrl: string; names: readonly string[]; prefix: string }) {
    this.connection = bullConnection(options.redisUrl);
    this.queues = options.names.map((name) => new Queue(name, { connection: this.connection, prefix: options.prefix }));
  }

  async read(): Promise<QueueState[]> {
    return Promise.all(
      this.queues.map(async (queue) => {
        const [counts, paused, failed] = await Promise.all([
          queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized'),
          queue.isPaused(),
          queue.getFailed(0, RECENT_FAILURES - 1),
        ]);
        return {
          name: queue.name,
          // Jobs with a priority wait in their own list; to an operator they are waiting.
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
          active: counts.active ?? 0,
          completed: counts.completed ?? 0,
          failed: counts.failed ?? 0,
          delayed: counts.delayed ?? 0,
          paused,
          recentFailures: failed.flatMap((job) =>
            job?.id
              ? [
                  {
                    id: job.id,
                    name: job.name,
                    reason: job.failedReason ?? '',
                    attemptsMade: job.attemptsMade,
                    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
                  },
                ]
              : [],
          ),
        };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close()));
    this.connection.disconnect();
  }
}
