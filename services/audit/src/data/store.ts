/**
 * The audit writer's store: one document per entry in `audit_entries`, `_id` = seq (so the chain's
 * order is the primary key's), a unique index on the event id (a redelivered event is stored
 * once), and the anchor retention leaves in `audit_anchor`. Append-only: nothing here updates an
 * entry. The chain itself is domain/chain.ts.
 */
import { type AuditEntry, type AuditEvent, AuditEventSchema } from '@nrad/contracts';
import { isDuplicateKeyError } from '@nrad/service-kit';
import mongoose, { type Connection, type Model, Schema } from 'mongoose';
import { type ChainAnchor, type ChainReport, ChainVerifier, chainEntry, GENESIS } from '../domain/chain.ts';

export const ENTRIES_COLLECTION = 'audit_entries';
export const ANCHOR_COLLECTION = 'audit_anchor';

/** An entry as stored: the event id as `eventId` (unique), seq as `_id`, `time` for range reads. */
interface EntryDoc extends Omit<AuditEntry, 'id' | 'seq'> {
  _id: number;
  eventId: string;
  /** `at` as a date, for reads by time (not hashed: `at` is). */
  time: Date;
}

const entrySchema = new Schema<EntryDoc>(
  {
    _id: { type: Number, required: true },
    eventId: { type: String, required: true, unique: true },
    action: { type: String, required: true },
    at: { type: String, required: true },
    time: { type: Date, required: true },
    userId: { type: String, default: null },
    organization: { type: String, default: null },
    recordIds: { type: [String], required: true },
    requestId: { type: String, default: null },
    clientAddress: { type: String, default: null },
    service: { type: String, required: true },
    detail: { type: Schema.Types.Mixed },
    prevHash: { type: String, required: true },
    hash: { type: String, required: true },
  },
  { collection: ENTRIES_COLLECTION, versionKey: false, minimize: false },
);

interface AnchorDoc {
  _id: 'anchor';
  seq: number;
  hash: string;
}

const anchorSchema = new Schema<AnchorDoc>(
  {
    _id: { type: String, required: true },
    seq: { type: Number, required: true },
    hash: { type: String, required: true },
  },
  { collection: ANCHOR_COLLECTION, versionKey: false },
);

function docOf(entry: AuditEntry): EntryDoc {
  const { id, seq, detail, ...rest } = entry;
  return { ...rest, ...(detail ? { detail } : {}), _id: seq, eventId: id, time: new Date(entry.at) };
}

/** The entry a stored document holds (whatever else the document carries is not the entry's). */
export function entryOf(doc: EntryDoc): AuditEntry {
  const { _id, eventId, action, at, userId, organization, recordIds, requestId, clientAddress, service } = doc;
  return {
    id: eventId,
    action,
    at,
    userId,
    organization,
    recordIds: [...recordIds],
    requestId,
    clientAddress,
    service,
    ...(doc.detail !== undefined && doc.detail !== null ? { detail: doc.detail } : {}),
    seq: _id,
    prevHash: doc.prevHash,
    hash: doc.hash,
  };
}

/** A query operator the connection's sanitizeFilter lets through (our own, never a client's). */
const op = <T extends object>(o: T): T => mongoose.trusted(o) as T;

/** Appends racing another writer for one seq are tried again this many times. */
const APPEND_ATTEMPTS = 10;

export class AuditStore {
  readonly entries: Model<EntryDoc>;
  readonly anchors: Model<AnchorDoc>;

  constructor(conn: Connection) {
    this.entries = conn.model<EntryDoc>('AuditEntry', entrySchema);
    this.anchors = conn.model<AnchorDoc>('AuditAnchor', anchorSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.entries.init(), this.anchors.init()]);
  }

  /** Where the kept chain starts: the anchor retention left, or the genesis. */
  async anchor(): Promise<ChainAnchor> {
    const doc = await this.anchors.findById('anchor').lean<AnchorDoc>();
    return doc ? { seq: doc.seq, hash: doc.hash } : GENESIS;
  }

  /** The chain's last entry (or its anchor when none is kept). */
  async last(): Promise<ChainAnchor> {
    const doc = await this.entries.findOne({}, { _id: 1, hash: 1 }).sort({ _id: -1 }).lean<EntryDoc>();
    return doc ? { seq: doc._id, hash: doc.hash } : this.anchor();
  }

  /**
   * Stores an event as the chain's next entry, once: an event already stored (its id) is answered
   * with its entry and `stored: false`. Validated with the contract first: nothing malformed
   * enters the chain.
   */
  async append(input: AuditEvent): Promise<{ entry: AuditEntry; stored: boolean }> {
    const event = AuditEventSchema.parse(input);
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const existing = await this.entries.findOne({ eventId: event.id }).lean<EntryDoc>();
      if (existing) return { entry: entryOf(existing), stored: false };
      const entry = chainEntry(await this.last(), event);
      try {
        await this.entries.create(docOf(entry));
        return { entry, stored: true };
      } catch (error) {
        // Another append took this seq (or stored this very event): look again.
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error(`audit event ${event.id}: no free place in the chain after ${APPEND_ATTEMPTS} attempts`);
  }

  /**
   * Retention: removes the oldest entries whose time is before `cutoff` — the run of them from the
   * start of the chain, so an entry younger than the cutoff is never removed, nor any after it
   * (an event stored late with an older time stays until the entries before it go). The anchor
   * moves to the last entry removed first, then the entries go: a crash between the two leaves old
   * entries that verify skips (they are at or before the anchor) and the next run removes.
   */
  async removeOlderThan(cutoff: Date): Promise<{ removed: number; anchor: ChainAnchor }> {
    const current = await this.anchor();
    let last: ChainAnchor | undefined;
    const cursor = this.entries
      .find({ _id: op({ $gt: current.seq }) }, { _id: 1, hash: 1, time: 1 })
      .sort({ _id: 1 })
      .lean<EntryDoc>()
      .cursor();
    try {
      for await (const doc of cursor) {
        const entry = doc as EntryDoc;
        if (!(entry.time < cutoff)) break;
        last = { seq: entry._id, hash: entry.hash };
      }
    } finally {
      await cursor.close();
    }
    if (!last) return { removed: 0, anchor: current };
    await this.anchors.updateOne({ _id: 'anchor' }, { $set: { seq: last.seq, hash: last.hash } }, { upsert: true });
    const { deletedCount } = await this.entries.deleteMany({ _id: op({ $lte: last.seq }) });
    return { removed: deletedCount, anchor: last };
  }

  /** Walks the kept chain in seq order from its anchor (see domain/chain.ts). */
  async verify(): Promise<ChainReport> {
    const anchor = await this.anchor();
    const verifier = new ChainVerifier(anchor);
    const cursor = this.entries
      .find({ _id: op({ $gt: anchor.seq }) })
      .sort({ _id: 1 })
      .lean<EntryDoc>()
      .cursor();
    try {
      for await (const doc of cursor) if (!verifier.next(entryOf(doc as EntryDoc))) break;
    } finally {
      await cursor.close();
    }
    return verifier.report();
  }
}
