/**
 * The audit writer's store: one document per entry in `audit_entries`, `_id` = seq (so the chain's
 * order is the primary key's), a unique index on the event id (a redelivered event is stored
 * once), and the anchor retention leaves in `audit_anchor`. Append-only: nothing here updates an
 * entry. The chain itself is domain/chain.ts.
 *
 * Reads for `GET /api/audit` go through indexes both stores serve: `recordIds` has a single-field
 * index (a multikey index on MongoDB; on our FerretDB build the elements table of an array field,
 * which only a single-field index gets, ADR 0002), `userId` one with seq after it, `time` one for
 * ranges. On FerretDB the filter is SQL on those indexes; the order by seq (a number) is not, so
 * the matching entries are sorted in memory there (MONGO-COMPAT.md: correct, slower).
 */
import { type AuditEntry, type AuditEvent, AuditEventSchema } from '@nrad/contracts';
import { isDuplicateKeyError } from '@nrad/service-kit';
import type { PlannedQuery } from '@nrad/service-kit/query-plans';
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
// A record's timeline: single-field, so our FerretDB build keeps the array's elements table (ADR 0002).
entrySchema.index({ recordIds: 1 });
// A user's actions, newest first.
entrySchema.index({ userId: 1, _id: -1 });
// A time range.
entrySchema.index({ time: 1 });

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

/**
 * What `GET /api/audit` asks for: entries naming a record, of a user, in a time range (`from`
 * inclusive, `to` exclusive, on the entry's time). Every member given must hold.
 */
export interface AuditFilter {
  recordId?: string;
  userId?: string;
  from?: Date;
  to?: Date;
}

/** The fields a listed entry needs (the hashes, the client address and the detail are left out). */
const LISTED = {
  _id: 1,
  eventId: 1,
  action: 1,
  at: 1,
  userId: 1,
  organization: 1,
  recordIds: 1,
  requestId: 1,
} as const;

/** An entry as `GET /api/audit` lists it (its event id as `id`). */
export type ListedEntry = Pick<
  AuditEntry,
  'id' | 'seq' | 'action' | 'at' | 'userId' | 'organization' | 'recordIds' | 'requestId'
>;

/** The reads of the store, as it makes them (the query-plans test plans the same ones). */
export const auditQueries = {
  page(filter: AuditFilter, limit: number, offset: number) {
    const query: Record<string, unknown> = {};
    if (filter.recordId !== undefined) query.recordIds = filter.recordId;
    if (filter.userId !== undefined) query.userId = filter.userId;
    if (filter.from || filter.to) {
      query.time = op({ ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) });
    }
    return {
      filter: query,
      sort: { _id: -1 as const },
      limit,
      skip: offset,
      projection: { ...LISTED },
    } satisfies PlannedQuery & { skip: number };
  },
};

/** Appends racing another writer for one seq are tried again this many times. */
const APPEND_ATTEMPTS = 10;

/** A schema that neither creates its collection nor its indexes (a reader of a running system's database). */
const readOnly = <T>(schema: Schema<T>): Schema<T> => schema.clone().set('autoCreate', false).set('autoIndex', false);
// Made once: a connection's second store gets the same models (mongoose refuses another schema under one name).
const READ_ONLY = { entry: readOnly(entrySchema), anchor: readOnly(anchorSchema) };

export class AuditStore {
  readonly entries: Model<EntryDoc>;
  readonly anchors: Model<AnchorDoc>;
  /**
   * The entry this store appended last: the next append builds on it, once a read by `_id` has
   * found it still there, unchanged (on FerretDB the sort by seq of `last()` is not SQL's, so it
   * reads every entry). When another writer has appended since, the insert is refused (the seq is
   * taken) and the append reads `last()` again; when it is gone (retention, or anything else),
   * `last()` answers at once.
   */
  private head: ChainAnchor | undefined;

  /**
   * `readOnly`: creates nothing in the database (no collection, no index), as audit:verify reads a
   * running system's. A connection holds stores of one kind only (the models are per connection).
   */
  constructor(conn: Connection, options: { readOnly?: boolean } = {}) {
    this.entries = conn.model<EntryDoc>('AuditEntry', options.readOnly ? READ_ONLY.entry : entrySchema);
    this.anchors = conn.model<AnchorDoc>('AuditAnchor', options.readOnly ? READ_ONLY.anchor : anchorSchema);
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
      const entry = chainEntry(await this.previous(), event);
      try {
        await this.entries.create(docOf(entry));
        this.head = { seq: entry.seq, hash: entry.hash };
        return { entry, stored: true };
      } catch (error) {
        // Another append took this seq (or stored this very event): look again.
        this.head = undefined;
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
    throw new Error(`audit event ${event.id}: no free place in the chain after ${APPEND_ATTEMPTS} attempts`);
  }

  /**
   * Stores a run of events as the chain's next entries, in order, each once (an event already
   * stored, or given twice, is skipped): one read of which are stored, one of the chain's head and
   * one ordered insert for the run, where `append` makes three round trips an event. When another
   * writer took a seq meanwhile, the insert stops at it and the rest go through `append`, one by
   * one.
   */
  async appendMany(inputs: readonly AuditEvent[]): Promise<void> {
    const unique = [...new Map(inputs.map((e) => [e.id, AuditEventSchema.parse(e)])).values()];
    if (unique.length === 0) return;
    const stored = new Set(
      (
        await this.entries
          .find({ eventId: op({ $in: unique.map((e) => e.id) }) }, { eventId: 1 })
          .lean<Array<Pick<EntryDoc, 'eventId'>>>()
      ).map((d) => d.eventId),
    );
    const fresh = unique.filter((e) => !stored.has(e.id));
    if (fresh.length === 0) return;
    let head = await this.previous();
    const entries = fresh.map((event) => {
      const entry = chainEntry(head, event);
      head = { seq: entry.seq, hash: entry.hash };
      return entry;
    });
    try {
      await this.entries.insertMany(entries.map(docOf), { ordered: true, lean: true });
      this.head = head;
    } catch (error) {
      this.head = undefined;
      if (!isDuplicateKeyError(error)) throw error;
      // The entries before the refused one are in (append finds them); the others find their place.
      for (const event of fresh) await this.append(event);
    }
  }

  /** What the next entry follows: the entry appended last if it is still the one written, else `last()`. */
  private async previous(): Promise<ChainAnchor> {
    const head = this.head;
    if (head) {
      const doc = await this.entries.findById(head.seq, { hash: 1 }).lean<Pick<EntryDoc, '_id' | 'hash'>>();
      if (doc?.hash === head.hash) return head;
    }
    return this.last();
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

  /** A page of the entries `filter` selects, newest (highest seq) first, and how many it selects. */
  async page(filter: AuditFilter, limit: number, offset: number): Promise<{ items: ListedEntry[]; total: number }> {
    const q = auditQueries.page(filter, limit, offset);
    const [docs, total] = await Promise.all([
      this.entries.find(q.filter, q.projection).sort(q.sort).skip(q.skip).limit(limit).lean<EntryDoc[]>(),
      this.entries.countDocuments(q.filter),
    ]);
    return {
      items: docs.map((d) => ({
        id: d.eventId,
        seq: d._id,
        action: d.action,
        at: d.at,
        userId: d.userId ?? null,
        organization: d.organization ?? null,
        recordIds: [...d.recordIds],
        requestId: d.requestId ?? null,
      })),
      total,
    };
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
