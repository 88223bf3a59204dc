import { RecordEventSchema } from '@nrad/contracts';
import { type Bus, type Logger, type RunningConsumer, startConsumer } from '@nrad/service-kit';
import { applyRecordEvent, type StatsDeps } from '../use-cases/stats.ts';

export interface RecordConsumerOptions {
  bus: Bus;
  deps: StatsDeps;
  logger: Logger;
  /** The RECORDS stream, the first token of its subjects (`records`) and this service's durable. */
  stream: string;
  subjectPrefix: string;
  durable: string;
  ackWaitMs: number;
}

/**
 * Keeps the read model current: a durable pull consumer of `<prefix>.>`, one event at a time in
 * stream order, acknowledged once applied (`applyRecordEvent`, idempotent by record version). An
 * event that does not decode is terminated (logged); a failed write is retried after a delay.
 */
export function startRecordConsumer(options: RecordConsumerOptions): Promise<RunningConsumer> {
  const { bus, deps, logger } = options;
  return startConsumer({
    bus,
    stream: options.stream,
    durable: options.durable,
    filterSubject: `${options.subjectPrefix}.>`,
    ackWaitMs: options.ackWaitMs,
    decode: (data) => RecordEventSchema.parse(data),
    handle: (event) => applyRecordEvent(deps, event),
    logger,
  });
}
