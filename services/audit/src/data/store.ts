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
 * a page there is read by seq instead of sorted (`page`): the kept chain is the seqs after its
 * anchor, one each, so ADMIN's unfiltered page is the page's seqs read by `_id`, and a filtered page
 * with many entries walks the seqs down from the last in windows (`_id` `$in`), counting in SQL what
 * it passes over. Few matching entries, or a state the chain cannot be read by seq in, are read whole
 * and sorted, as the store did at first.
 */
import { type AuditEntry, type AuditEvent, AuditEventSchema } from '@nrad/contracts';
import { isDuplicateKeyError, isFerretDb, type Scope } from '@nrad/service-kit';
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

/**
 * The fields a listed entry needs (the hashes are left out). The client address, the service and
 * the detail are for ADMIN only (AuditStore.page leaves them out of an agency's page).
 */
const LISTED = {
  _id: 1,
  eventId: 1,
  action: 1,
  at: 1,
  userId: 1,
  organization: 1,
  recordIds: 1,
  requestId: 1,
  clientAddress: 1,
  service: 1,
  detail: 1,
} as const;

/** An entry as `GET /api/audit` lists it (its event id as `id`); ADMIN's with where from, which service and the detail. */
export type ListedEntry = Pick<
  AuditEntry,
  'id' | 'seq' | 'action' | 'at' | 'userId' | 'organization' | 'recordIds' | 'requestId'
> &
  Partial<Pick<AuditEntry, 'clientAddress' | 'service' | 'detail'>>;

/** The reads of the store, as it makes them (the query-plans test plans the same ones). */
export const auditQueries = {
  /** An agency's user filter reaches its own agency's users only (the acting user's organization). */
  page(scope: Scope, filter: AuditFilter, limit: number, offset: number) {
    const query: Record<string, unknown> = {};
    if (filter.recordId !== undefined) query.recordIds = filter.recordId;
    if (filter.userId !== undefined) Object.assign(query, { userId: filter.userId }, scope.filter());
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

/**
 * Paging by seq on FerretDB (`page`). A filtered page of at most this many entries is read whole
 * and sorted: reading an entry costs about 0.1 ms there, and a walk makes several round trips.
 */
const SORT_AT_MOST = 500;
/** Seqs one window of a walk names (`_id` `$in`), at least and at most. */
const WINDOW_MIN = 256;
const WINDOW_MAX = 4096;
/**
 * A walk passes over at most this many seqs per matching entry (a window's count costs about a
 * tenth of reading an entry); past that, the matching entries are read whole and sorted instead.
 */
const WALK_SEQS_PER_MATCH = 10;
/** Reading by seq counts and checks the chain again this many times when appends land in between. */
const BY_SEQ_ATTEMPTS = 3;

/** Where a page's `_id` condition goes: the filter given, and the seqs of a window or a page. */
const withSeqs = (filter: Record<string, unknown>, seqs: number[]) => ({ ...filter, _id: op({ $in: seqs }) });

/** lo, lo + 1, …, hi, highest first. */
const seqsDown = (hi: number, lo: number) => Array.from({ length: Math.max(0, hi - lo + 1) }, (_, k) => hi - k);

const listedOf = (d: EntryDoc): ListedEntry => ({
  id: d.eventId,
  seq: d._id,
  action: d.action,
  at: d.at,
  userId: d.userId ?? null,
  organization: d.organization ?? null,
  recordIds: [...d.recordIds],
  requestId: d.requestId ?? null,
  clientAddress: d.clientAddress ?? null,
  service: d.service,
  ...(d.detail ? { detail: d.detail } : {}),
});

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
  /** Whether the server sorts numbers in memory (our FerretDB build), asked once. */
  private readsBySeq: Promise<boolean> | undefined;

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

  /**
   * A page of the entries `filter` selects within `scope`, newest (highest seq) first, and how many
   * it selects. A scope of every agency reads everything. An agency's scope reads the timeline of
   * one record (`recordId`, which the caller has found to be the agency's: `RecordOwners.ownerOf`)
   * and sees of each entry only that record among its record ids and, of another organization's
   * action, that organization only: no user id, no request id (issue 34); its user filter reaches
   * its own agency's users only.
   */
  async page(
    scope: Scope,
    filter: AuditFilter,
    limit: number,
    offset: number,
  ): Promise<{ items: ListedEntry[]; total: number }> {
    if (scope.isAll) return this.pageOf(scope, filter, limit, offset);
    const { recordId } = filter;
    if (recordId === undefined) throw new Error(`an audit read in ${scope} names no record`);
    const { items, total } = await this.pageOf(scope, filter, limit, offset);
    return {
      // What was tried, from where, by which service: ADMIN's to read (an agency's own entries
      // too: a NAMLC check's detail is what it asked of another agency's records).
      items: items.map(({ clientAddress: _a, service: _s, detail: _d, ...item }) => ({
        ...item,
        recordIds: [recordId],
        ...(scope.includes(item.organization) ? {} : { userId: null, requestId: null }),
      })),
      total,
    };
  }

  private async pageOf(
    scope: Scope,
    filter: AuditFilter,
    limit: number,
    offset: number,
  ): Promise<{ items: ListedEntry[]; total: number }> {
    const q = auditQueries.page(scope, filter, limit, offset);
    this.readsBySeq ??= isFerretDb(this.entries.db).catch(() => false);
    let total: number | undefined;
    if (await this.readsBySeq) {
      if (Object.keys(q.filter).length === 0) {
        const page = await this.latestBySeq(limit, offset);
        if (page) return page;
      } else {
        total = await this.entries.countDocuments(q.filter);
        if (offset >= total) return { items: [], total };
        // Entries come in roughly in time order: those before `to` bunch far down the chain.
        const walk = total > SORT_AT_MOST && filter.to === undefined;
        const page = walk ? await this.walkBySeq(q.filter, total, limit, offset) : undefined;
        if (page) return page;
      }
    }
    const [docs, counted] = await Promise.all([
      this.entries.find(q.filter, q.projection).sort(q.sort).skip(q.skip).limit(limit).lean<EntryDoc[]>(),
      total ?? this.entries.countDocuments(q.filter),
    ]);
    return { items: docs.map(listedOf), total: counted };
  }

  /*
   * Paging by seq, where the store sorts seqs in memory (FerretDB). The kept chain is the seqs
   * after the anchor, A + 1 … A + C (C entries), each once: appends take the next seq, retention
   * removes from the start and moves the anchor first, nothing else removes an entry. So, when no
   * entry at or before the anchor is left (a retention run that stopped between moving the anchor
   * and removing its entries leaves some, the anchor's own seq among them), the last entry is
   * A + C: `chainEnd` checks that A + C is there and A + C + 1 is not. Entries appended after the
   * check come after A + C and are not on the page, as if it had been read just before them. Whatever
   * is not as expected (an entry of the page missing; an entry removed from the middle, which
   * `verify` names) answers undefined, and the caller sorts.
   */

  /**
   * The kept chain's anchor, its count and its last seq (A + C), once checked as above; undefined
   * when the chain is not in that state. An append between the count and the check (A + C + 1 is
   * there) makes it count and check again, up to BY_SEQ_ATTEMPTS times.
   */
  private async chainEnd(): Promise<{ anchor: number; count: number; last: number } | undefined> {
    for (let attempt = 0; attempt < BY_SEQ_ATTEMPTS; attempt++) {
      const [anchor, count] = await Promise.all([this.anchor(), this.entries.countDocuments({})]);
      const last = anchor.seq + count;
      const probe = anchor.seq > 0 ? [anchor.seq, last, last + 1] : [last, last + 1];
      const found = await this.entries.find(withSeqs({}, probe), { _id: 1 }).lean<Array<Pick<EntryDoc, '_id'>>>();
      const there = new Set(found.map((d) => d._id));
      if (count === 0) return { anchor: anchor.seq, count, last };
      if (!there.has(last) || (anchor.seq > 0 && there.has(anchor.seq))) return undefined;
      if (!there.has(last + 1)) return { anchor: anchor.seq, count, last };
    }
    return undefined;
  }

  /** ADMIN's unfiltered page: the seqs A + C − offset down, read by `_id`. */
  private async latestBySeq(
    limit: number,
    offset: number,
  ): Promise<{ items: ListedEntry[]; total: number } | undefined> {
    const chain = await this.chainEnd();
    if (!chain) return undefined;
    const total = chain.count;
    if (offset >= total) return { items: [], total };
    const seqs = seqsDown(chain.last - offset, Math.max(chain.anchor + 1, chain.last - offset - limit + 1));
    const docs = await this.entries.find(withSeqs({}, seqs), { ...LISTED }).lean<EntryDoc[]>();
    if (docs.length !== seqs.length) return undefined;
    docs.sort((a, b) => b._id - a._id);
    return { items: docs.map(listedOf), total };
  }

  /**
   * A filtered page of many entries: walks the seqs down from A + C in windows, each the filter and
   * `_id` `$in` the window's seqs (SQL on the filter's index and the primary key), sized by how
   * densely the filter matches; a window before the page is counted in SQL, a window on it read.
   * When the walk would pass over more than WALK_SEQS_PER_MATCH seqs per matching entry (a deep
   * page, or entries bunched far down the chain), it answers undefined: reading them all is cheaper.
   */
  private async walkBySeq(
    filter: Record<string, unknown>,
    total: number,
    limit: number,
    offset: number,
  ): Promise<{ items: ListedEntry[]; total: number } | undefined> {
    const chain = await this.chainEnd();
    if (!chain || chain.count === 0) return undefined;
    const wanted = Math.min(limit, total - offset);
    const density = total / chain.count;
    const budget = total * WALK_SEQS_PER_MATCH;
    if ((offset + wanted) / density > budget) return undefined;
    const items: ListedEntry[] = [];
    let passed = 0; // matching entries above the window (higher seqs)
    let scanned = 0;
    for (let top = chain.last; items.length < wanted && top > chain.anchor; ) {
      if (scanned > budget) return undefined;
      const size = Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, Math.ceil(((offset + wanted - passed) / density) * 1.25)));
      const low = Math.max(chain.anchor + 1, top - size + 1);
      const window = withSeqs(filter, seqsDown(top, low));
      scanned += top - low + 1;
      top = low - 1;
      if (passed < offset) {
        const inWindow = await this.entries.countDocuments(window);
        if (passed + inWindow <= offset) {
          passed += inWindow;
          continue;
        }
      }
      const docs = await this.entries.find(window, { ...LISTED }).lean<EntryDoc[]>();
      docs.sort((a, b) => b._id - a._id);
      for (const d of docs) {
        passed++;
        if (passed > offset && items.length < wanted) items.push(listedOf(d));
      }
    }
    return items.length === wanted ? { items, total } : undefined;
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
