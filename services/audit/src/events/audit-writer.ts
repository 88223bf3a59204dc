import type { AuditEvent } from '@nrad/contracts';
import {
  type AuditStreamConfig,
  auditMessageEvents,
  type Bus,
  ensureAuditStream,
  type Logger,
  startConsumer,
} from '@nrad/service-kit';
import type { AuditStore } from '../data/store.ts';

export interface AuditWriterOptions {
  bus: Bus;
  config: AuditStreamConfig & { AUDIT_CONSUMER: string; EVENT_ACK_WAIT_MS: number };
  store: AuditStore;
  logger: Logger;
}

/**
 * The audit writer: makes sure the AUDIT stream exists and starts the durable consumer of
 * `audit.>` that stores each event as the chain's next entry, in stream order (the events at hand
 * in one run, appended together: `appendMany`; a group commit's batch is its events in order). An
 * event already stored (a redelivery, a re-publish outside the stream's duplicate window, an event
 * relayed from a spool after its batch was stored but not acknowledged) is stored once: append
 * answers it with its entry. An event that does not decode with the contract is terminated and logged by
 * the consumer loop, never stored.
 */
export async function startAuditWriter({ bus, config, store, logger }: AuditWriterOptions) {
  await ensureAuditStream(bus, config);
  return startConsumer<AuditEvent[]>({
    bus,
    stream: config.AUDIT_STREAM,
    durable: config.AUDIT_CONSUMER,
    filterSubject: `${config.AUDIT_SUBJECT_PREFIX}.>`,
    ackWaitMs: config.EVENT_ACK_WAIT_MS,
    decode: auditMessageEvents,
    handleBatch: (run) => store.appendMany(run.flatMap((r) => r.event)),
    logger,
  });
}
