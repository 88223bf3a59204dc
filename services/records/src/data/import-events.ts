import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { AuditActor } from '@nrad/service-kit';
import { type Connection, mongo, Types } from 'mongoose';
import type { OutboxEntry } from './records.ts';

/** The `created` event of one record of an import request. */
export interface ImportEvent {
  recordId: Types.ObjectId;
  entry: OutboxEntry;
}

/** The `created` events of one import request, stored in one document before its records. */
export interface ImportEventsDoc {
  _id: Types.ObjectId;
  events: ImportEvent[];
  createdAt: Date;
  /**
   * Who imported (issue 21): the relay publishes a `record.create` audit event naming the records
   * that exist, with ids taken from this document's, so a relay run again publishes the same
   * events. Absent on documents from before the audit trail.
   */
  audit?: AuditActor;
}

/**
 * As stored: the events as one JSON text, deflated, in a binary field — one value for the store
 * to write and read back, where hundreds of nested documents would each be converted on every
 * insert, read and delete. Deflated (level 1: 4,000 records' events, 4.76 MB of text, take 0.52 MB)
 * because the store writes every byte to its log and reads the whole document back to delete it;
 * binary because a string of JSON would be escaped and unescaped on each of those trips.
 * Documents an earlier version stored hold the text as a string, and are read as such.
 */
interface StoredImportEvents {
  _id: Types.ObjectId;
  events: mongo.Binary | string;
  createdAt: Date;
  audit?: AuditActor;
}

const stored = (doc: ImportEventsDoc): StoredImportEvents => ({
  _id: doc._id,
  events: new mongo.Binary(
    deflateRawSync(JSON.stringify(doc.events.map((e) => ({ recordId: e.recordId.toHexString(), entry: e.entry }))), {
      level: 1,
    }),
  ),
  createdAt: doc.createdAt,
  ...(doc.audit ? { audit: doc.audit } : {}),
});

function loaded(doc: StoredImportEvents): ImportEventsDoc {
  const text =
    typeof doc.events === 'string'
      ? doc.events
      : inflateRawSync(doc.events.read(0, doc.events.length())).toString('utf8');
  const events = JSON.parse(text) as Array<{ recordId: string; entry: OutboxEntry & { createdAt: string } }>;
  return {
    _id: doc._id,
    events: events.map((e) => ({
      recordId: new Types.ObjectId(e.recordId),
      entry: { ...e.entry, createdAt: new Date(e.entry.createdAt) },
    })),
    createdAt: doc.createdAt,
    ...(doc.audit ? { audit: doc.audit } : {}),
  };
}

/**
 * The import outbox (docs/adr/0011): an import request stores the `created` events of all its new
 * records in one document, then inserts the records without events of their own. Its relay
 * publishes the events of the records that exist and then deletes the document — one insert and
 * one delete per request, where an outbox in each record would cost a second write of every
 * record (every index of the collection written again) to clear it.
 */
export class ImportEventsRepository {
  private readonly raw: mongo.Collection<StoredImportEvents>;

  constructor(conn: Connection) {
    this.raw = conn.collection<StoredImportEvents>('import_events') as unknown as mongo.Collection<StoredImportEvents>;
  }

  async add(doc: ImportEventsDoc): Promise<void> {
    await this.raw.insertOne(stored(doc));
  }

  async remove(id: Types.ObjectId): Promise<void> {
    await this.raw.deleteOne({ _id: id });
  }

  /** The ids of the oldest documents (by `_id`, which starts with its creation time), without their events. */
  async oldestIds(limit: number): Promise<Types.ObjectId[]> {
    return (
      await this.raw
        .find({}, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray()
    ).map((d) => d._id);
  }

  /** One document, or null once it is gone. */
  async get(id: Types.ObjectId): Promise<ImportEventsDoc | null> {
    const doc = await this.raw.findOne({ _id: id });
    return doc ? loaded(doc) : null;
  }

  /** The oldest documents (by `_id`, which starts with its creation time). */
  async oldest(limit: number): Promise<ImportEventsDoc[]> {
    return (await this.raw.find({}).sort({ _id: 1 }).limit(limit).toArray()).map(loaded);
  }
}
