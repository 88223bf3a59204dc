import { RECORDS_STREAM, type RecordEvent, RecordEventSchema } from '@nrad/contracts';
import { z } from 'zod';
import { env } from './config.ts';
import { type Bus, ensureStream, type RunningConsumer, startConsumer } from './jetstream.ts';
import type { Logger } from './logger.ts';

/** The variables of a service that keeps a model of its own from the records service's `records.*` events. */
export const recordEventsEnv = (durable: string) => ({
  /** Where record events come from (the records service's stream and subjects). */
  RECORDS_STREAM: env.streamName(RECORDS_STREAM),
  RECORDS_SUBJECT_PREFIX: env.subjectPrefix('records'),
  /** The durable consumer of record events (one per deployment). */
  RECORDS_CONSUMER: env.streamName(durable),
  /**
   * How long an event handed to this service may stay unacknowledged before JetStream delivers it
   * again (milliseconds): events fetched but not yet handled when the service stops come back
   * after this.
   */
  EVENT_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
});

export interface RecordEventsConfig {
  RECORDS_STREAM: string;
  RECORDS_SUBJECT_PREFIX: string;
  RECORDS_CONSUMER: string;
  EVENT_ACK_WAIT_MS: number;
}

/**
 * The most record events handled together (a full run means more are waiting: a backlog). 1,000:
 * an upload's import requests bring 4,000 records at a time, and each run is a bulk write of each
 * consumer's own copy (the match index, the statistics' state, the record owners) — at 200, five
 * writes and five pulls per request for each of them.
 */
export const RECORD_EVENTS_BATCH = 1000;

/**
 * Makes sure the RECORDS stream exists and starts the service's durable consumer of `records.>`:
 * the events at hand handled together in stream order (`handleBatch`, up to RECORD_EVENTS_BATCH: a
 * bulk write for many), acknowledged once it resolves (handlers are idempotent by record version); when a run
 * fails, its events go again one by one (runs of one), each redelivered after a delay when it
 * throws; an event that does not decode is terminated (logged).
 */
export async function consumeRecordEvents(
  bus: Bus,
  config: RecordEventsConfig,
  handleBatch: (events: RecordEvent[]) => Promise<void>,
  logger: Logger,
): Promise<RunningConsumer> {
  const filterSubject = `${config.RECORDS_SUBJECT_PREFIX}.>`;
  await ensureStream(bus.jsm, { name: config.RECORDS_STREAM, subjects: [filterSubject] });
  return startConsumer<RecordEvent>({
    bus,
    stream: config.RECORDS_STREAM,
    durable: config.RECORDS_CONSUMER,
    filterSubject,
    ackWaitMs: config.EVENT_ACK_WAIT_MS,
    batchSize: RECORD_EVENTS_BATCH,
    decode: (data) => RecordEventSchema.parse(data),
    handleBatch: (run) => handleBatch(run.map((r) => r.event)),
    logger,
  });
}
