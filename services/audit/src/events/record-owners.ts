import type { RecordEvent } from '@nrad/contracts';
import { type Bus, consumeRecordEvents, type Logger, type RecordEventsConfig } from '@nrad/service-kit';
import type { RecordOwners } from '../data/owners.ts';

/**
 * Keeps `record_owners` from the RECORDS stream (the kit's durable consumer of `records.>`,
 * RECORDS_CONSUMER): each event's record id and organization (the record snapshot's), written
 * once per record.
 */
export function startOwnerConsumer(bus: Bus, config: RecordEventsConfig, owners: RecordOwners, logger: Logger) {
  return consumeRecordEvents(
    bus,
    config,
    async (events: RecordEvent[]) => {
      await owners.record(events.map((e) => ({ recordId: e.record.id, organization: e.record.organization })));
    },
    logger,
  );
}
