import { LinkEventSchema, linkSubject } from '@nrad/contracts';
import { type Bus, type KeyedLock, type Logger, type RunningConsumer, startConsumer } from '@nrad/service-kit';
import type { RecordRepository } from '../data/records.ts';
import { recordLink, recordLinkChange } from '../use-cases/records.ts';

/** The durable consumer of the records service on the LINKS stream. */
export const LINKS_DURABLE = 'records-links';

export interface LinkConsumerOptions {
  bus: Bus;
  records: RecordRepository;
  lock: KeyedLock;
  logger: Logger;
  /** The LINKS stream and the first token of its subjects (`links` in production). */
  stream: string;
  subjectPrefix: string;
}

/**
 * Keeps the Linked flag of records: a durable pull consumer of `<prefix>.*` that adds each new
 * link's organizations to its two records (`recordLink`) and, for a link rejected or restored,
 * sets each record's organizations to those the event names (`recordLinkChange`). At least once and idempotent: a
 * redelivered or re-published event changes nothing. An event that does not decode is terminated
 * (logged) and the consumer goes on; a failed write is retried after a delay.
 */
export function startLinkConsumer(options: LinkConsumerOptions): Promise<RunningConsumer> {
  const { bus, records, lock, logger } = options;
  return startConsumer({
    bus,
    stream: options.stream,
    durable: LINKS_DURABLE,
    filterSubject: linkSubject(options.subjectPrefix, '*'),
    decode: (data) => LinkEventSchema.parse(data),
    handle: (event) =>
      event.type === 'created'
        ? recordLink({ records, lock, logger }, event.link)
        : recordLinkChange({ records, lock, logger }, event),
    logger,
  });
}
