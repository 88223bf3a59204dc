import type { CaseRecord, Link, LinkEvent, Organization } from '@nrad/contracts';
import { UNCERTAIN_CLASSES, type UncertainClass } from '@nrad/matching';
import { isDuplicateKeyError, replaceManyById, type Scope } from '@nrad/service-kit';
import { type Connection, type Model, type mongo, Schema, Types } from 'mongoose';
import { entryFor, type IndexEntry } from '../domain/match-index.ts';

/**
 * One record in the match index (collection `match_index`, `_id` = the record's id): the latest
 * snapshot from `records.*` (the full record, which `GET /api/records/{id}/links` returns), the
 * normalized match fields and the blocking keys. The snapshot's `version` makes applying an event
 * idempotent: an event no newer than what is stored changes nothing.
 */
export interface IndexDoc {
  _id: Types.ObjectId;
  organization: string;
  version: number;
  deleted: boolean;
  record: CaseRecord;
  /** Folded name words, their Double Metaphone codes, initials (the scorer's PreparedName). */
  nameTokens: string[];
  nameCodes: string[];
  initials: string[];
  suspectDob: string | null;
  incidentDate: string | null;
  caseAmount: number | null;
  keys: string[];
  updatedAt: Date;
}

const indexSchema = new Schema<IndexDoc>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    organization: { type: String, required: true },
    version: { type: Number, required: true },
    deleted: { type: Boolean, required: true },
    record: { type: Schema.Types.Mixed, required: true },
    nameTokens: [String],
    nameCodes: [String],
    initials: [String],
    suspectDob: String,
    incidentDate: String,
    caseAmount: Number,
    keys: [String],
    updatedAt: { type: Date, required: true },
  },
  { collection: 'match_index', versionKey: false, minimize: false },
);
// No index on `keys`: candidates are looked up in memory (MatchIndex), never in the store, and an
// index of an array's whole text cost every entry's insert (docs/adr/0007).

/** A message kept beside a link until it is published: its `Nats-Msg-Id`, its subject and its JSON. */
export interface OutboxMessage {
  id: string;
  subject: string;
  payload: string;
}

/**
 * A stored link, which is also its own outbox: `published` turns true once `links.created` and the
 * link's audit event (`link.create`, issue 21) are both in their streams.
 */
export interface LinkDoc {
  _id: Types.ObjectId;
  /** The two record ids in ascending order joined by ':' — one link per pair (unique). */
  pairKey: string;
  sourceRecordId: string;
  linkedRecordId: string;
  sourceOrganization: string;
  linkedOrganization: string;
  linkType: 'auto' | 'manual';
  confidence: number;
  matchCriteria: Link['matchCriteria'];
  explanation: Link['explanation'];
  createdAt: Date;
  createdById: string | null;
  /** The `links.created` event as JSON, exactly as it is published. */
  event: string;
  /**
   * The `link.create` audit event, as it is published to the audit stream (written with the link,
   * so the two cannot part). Links stored before the audit trail have none.
   */
  audit?: OutboxMessage;
  published: boolean;
  /** Set while the link is rejected (issue 34): it then discloses nothing and is never made again. */
  rejection?: StoredRejection | null;
  /** Rejections and restores so far: a publish clears `pending` only up to the count it sent. */
  changeSeq?: number;
  /**
   * The messages of the changes since the last publish (`links.rejected` or `links.restored`, and
   * the change's audit event), written with the change so that the two cannot part.
   */
  pending?: OutboxMessage[];
}

export interface StoredRejection {
  at: Date;
  byId: string;
  byOrganization: string;
  reason: string;
}

/**
 * NAMLC check disclosures (collection `disclosures`): which records a user's check showed, until
 * when that lets the user link them (issue 34, DISCLOSURE_TTL_MINUTES). Kept in memory as well; read
 * back at start.
 */
export interface DisclosureDoc {
  _id: string;
  userId: string;
  recordId: string;
  expiresAt: Date;
}

const linkSchema = new Schema<LinkDoc>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    pairKey: { type: String, required: true },
    sourceRecordId: { type: String, required: true },
    linkedRecordId: { type: String, required: true },
    sourceOrganization: { type: String, required: true },
    linkedOrganization: { type: String, required: true },
    linkType: { type: String, required: true },
    confidence: { type: Number, required: true },
    matchCriteria: { type: Schema.Types.Mixed, required: true },
    explanation: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    createdById: { type: String, default: null },
    event: { type: String, required: true },
    audit: { type: Schema.Types.Mixed, required: false },
    published: { type: Boolean, required: true },
    rejection: { type: Schema.Types.Mixed, required: false },
    changeSeq: { type: Number, required: false },
    pending: { type: Schema.Types.Mixed, required: false },
  },
  { collection: 'links', versionKey: false, minimize: false },
);

/**
 * A possible match (collection `possible_matches`, issue 36): a pair of two agencies' records the
 * scorer put between REVIEW_THRESHOLD and LINK_THRESHOLD, proposed for the investigators to decide.
 * One per pair (`pairKey` unique), whatever its state: a decided pair is never proposed again.
 */
export interface PossibleMatchDoc {
  _id: Types.ObjectId;
  pairKey: string;
  /** The record that brought the pair (the newer one) first. */
  recordIds: [string, string];
  organizations: [string, string];
  confidence: number;
  matchCriteria: Link['matchCriteria'];
  explanation: Link['explanation'];
  createdAt: Date;
  /** The pair's uncertain class (ScoreOptions.review), when it is in review for its names. */
  uncertain?: UncertainClass;
  /** Null until decided. */
  decision: StoredDecision | null;
}

export interface StoredDecision {
  kind: 'confirmed' | 'rejected';
  at: Date;
  byId: string;
  byOrganization: string;
  reason: string;
  linkId?: string;
}

const possibleMatchSchema = new Schema<PossibleMatchDoc>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    pairKey: { type: String, required: true },
    recordIds: { type: [String], required: true },
    organizations: { type: [String], required: true },
    confidence: { type: Number, required: true },
    matchCriteria: { type: Schema.Types.Mixed, required: true },
    explanation: { type: Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    uncertain: { type: String, enum: [...UNCERTAIN_CLASSES], required: false },
    decision: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'possible_matches', versionKey: false, minimize: false },
);
possibleMatchSchema.index({ pairKey: 1 }, { unique: true });

const disclosureSchema = new Schema<DisclosureDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    recordId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'disclosures', versionKey: false },
);
disclosureSchema.index({ expiresAt: 1 });
linkSchema.index({ pairKey: 1 }, { unique: true });

export function linkFromDoc(doc: LinkDoc): Link {
  return {
    id: doc._id.toHexString(),
    sourceRecordId: doc.sourceRecordId,
    linkedRecordId: doc.linkedRecordId,
    sourceOrganization: doc.sourceOrganization as Link['sourceOrganization'],
    linkedOrganization: doc.linkedOrganization as Link['linkedOrganization'],
    linkType: doc.linkType,
    confidence: doc.confidence,
    matchCriteria: doc.matchCriteria,
    explanation: doc.explanation,
    createdAt: doc.createdAt.toISOString(),
    createdById: doc.createdById,
    ...(doc.rejection
      ? {
          rejection: {
            at: doc.rejection.at.toISOString(),
            byId: doc.rejection.byId,
            byOrganization: doc.rejection.byOrganization as Organization,
            reason: doc.rejection.reason,
          },
        }
      : {}),
  };
}

/** The stored form of a record's index entry: its snapshot, its match fields and its keys. */
export function indexDoc(record: CaseRecord, entry: IndexEntry = entryFor(record)): IndexDoc {
  const { prepared } = entry;
  return {
    _id: new Types.ObjectId(entry.id),
    organization: entry.organization,
    version: entry.version,
    deleted: entry.deleted,
    record,
    nameTokens: [...prepared.name.tokens],
    nameCodes: prepared.name.codes.map(([p, s]) => (s && s !== p ? `${p}|${s}` : p)),
    initials: [...prepared.name.initials],
    suspectDob: record.suspectDob || null,
    incidentDate: record.incidentDate || null,
    caseAmount: prepared.caseAmount ?? null,
    keys: [...entry.keys],
    updatedAt: new Date(),
  };
}

export class LinkTakenError extends Error {
  override name = 'LinkTakenError';
}

/**
 * The filtered reads and writes of the linking store, by `_id` (exported for the plan test: an
 * index lookup on every store). Loading the index and the links at start reads both collections
 * whole, on purpose: nothing narrower would do.
 */
export const linkingQueries = {
  entry: (id: Types.ObjectId) => ({ filter: { _id: id } }),
  link: (id: Types.ObjectId) => ({ filter: { _id: id } }),
  linkChange: (id: Types.ObjectId, changeSeq: number) => ({ filter: { _id: id, changeSeq } }),
  disclosuresFrom: (now: Date) => ({ filter: { expiresAt: { $gt: now } } }),
  possibleMatch: (id: Types.ObjectId) => ({ filter: { _id: id } }),
  disclosuresBefore: (now: Date) => ({ filter: { expiresAt: { $lte: now } } }),
};

/** The linking service's database: the match index and the links. Only this module touches it. */
export class LinkingStore {
  readonly index: Model<IndexDoc>;
  readonly links: Model<LinkDoc>;
  readonly disclosures: Model<DisclosureDoc>;
  readonly possibleMatches: Model<PossibleMatchDoc>;

  constructor(conn: Connection) {
    this.index = conn.model<IndexDoc>('MatchIndexEntry', indexSchema);
    this.links = conn.model<LinkDoc>('Link', linkSchema);
    this.disclosures = conn.model<DisclosureDoc>('Disclosure', disclosureSchema);
    this.possibleMatches = conn.model<PossibleMatchDoc>('PossibleMatch', possibleMatchSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.index.init(), this.links.init(), this.disclosures.init(), this.possibleMatches.init()]);
  }

  private get rawPossibleMatches(): mongo.Collection<PossibleMatchDoc> {
    return this.possibleMatches.collection as unknown as mongo.Collection<PossibleMatchDoc>;
  }

  /** Stores a new possible match; false when its pair has one already (decided or not). */
  async insertPossibleMatch(doc: PossibleMatchDoc): Promise<boolean> {
    try {
      await this.rawPossibleMatches.insertOne(doc);
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }

  /**
   * Stores a possible match's decision; false when it is not stored. By `_id` alone (a filter on
   * the decision too is not served by the index on our FerretDB build): the caller decides only an
   * open one, under the possible match's lock, in the one process that owns this store.
   */
  async decidePossibleMatch(id: Types.ObjectId, decision: StoredDecision): Promise<boolean> {
    const result = await this.rawPossibleMatches.updateOne(linkingQueries.possibleMatch(id).filter, {
      $set: { decision },
    });
    return result.matchedCount === 1;
  }

  /** Every possible match of `scope` (one of its two records the scope's), for loading at start. */
  async *allPossibleMatches(scope: Scope): AsyncGenerator<PossibleMatchDoc> {
    for await (const doc of this.rawPossibleMatches.find(scope.filter('organizations')).batchSize(2000)) yield doc;
  }

  private get rawDisclosures(): mongo.Collection<DisclosureDoc> {
    return this.disclosures.collection as unknown as mongo.Collection<DisclosureDoc>;
  }

  /** Records that a check disclosed these records to the user, until `expiresAt` (one document per pair). */
  async saveDisclosures(userId: string, recordIds: readonly string[], expiresAt: Date): Promise<void> {
    if (recordIds.length === 0) return;
    await this.rawDisclosures.bulkWrite(
      recordIds.map((recordId) => {
        const _id = `${userId}:${recordId}`;
        return { replaceOne: { filter: { _id }, replacement: { _id, userId, recordId, expiresAt }, upsert: true } };
      }),
      { ordered: false },
    );
  }

  /** Disclosures still in force at `now`, for loading at start. */
  async *currentDisclosures(now: Date): AsyncGenerator<DisclosureDoc> {
    yield* this.rawDisclosures.find(linkingQueries.disclosuresFrom(now).filter).batchSize(2000);
  }

  /** Removes the disclosures past their time. */
  async removeExpiredDisclosures(now: Date): Promise<number> {
    return (await this.rawDisclosures.deleteMany(linkingQueries.disclosuresBefore(now).filter)).deletedCount;
  }

  /**
   * A rejection or restore of a link: its new state, its change count and its messages, in one
   * update (the caller holds the link's lock). False if the link is not stored.
   */
  async changeLink(
    id: Types.ObjectId,
    changeSeq: number,
    rejection: StoredRejection | null,
    pending: OutboxMessage[],
  ): Promise<boolean> {
    const result = await this.rawLinks.updateOne(linkingQueries.link(id).filter, {
      $set: { rejection, changeSeq, pending },
    });
    return result.matchedCount === 1;
  }

  /** One link as stored. */
  async link(id: Types.ObjectId): Promise<LinkDoc | null> {
    return this.rawLinks.findOne(linkingQueries.link(id).filter);
  }

  private get rawIndex(): mongo.Collection<IndexDoc> {
    return this.index.collection as unknown as mongo.Collection<IndexDoc>;
  }

  private get rawLinks(): mongo.Collection<LinkDoc> {
    return this.links.collection as unknown as mongo.Collection<LinkDoc>;
  }

  /** Every index entry's snapshot of `scope`, for loading the index at start. */
  async *allRecords(scope: Scope): AsyncGenerator<CaseRecord> {
    const filter = scope.filter('record.organization');
    for await (const doc of this.rawIndex.find(filter, { projection: { record: 1 } }).batchSize(2000)) {
      yield doc.record;
    }
  }

  /** Every link of `scope` (one of its two records the scope's), for loading at start. */
  async *allLinks(scope: Scope): AsyncGenerator<LinkDoc> {
    const filter = scope.isAll ? {} : { $or: [scope.filter('sourceOrganization'), scope.filter('linkedOrganization')] };
    for await (const doc of this.rawLinks.find(filter).batchSize(2000)) yield doc;
  }

  /**
   * Writes records' entries, each replacing the stored one whole (by `_id`, an index write); those
   * `isNew` says are new to the store are inserted together in one write.
   */
  async saveEntries(
    entries: ReadonlyArray<{ readonly entry: IndexEntry; readonly record: CaseRecord }>,
    isNew: (entry: IndexEntry) => boolean,
  ): Promise<void> {
    const docs = (fresh: boolean) =>
      entries.filter(({ entry }) => isNew(entry) === fresh).map(({ entry, record }) => indexDoc(record, entry));
    await replaceManyById(this.rawIndex, docs(true), docs(false));
  }

  /** Inserts many new records' entries at once (seeding a benchmark; a rebuild). */
  async insertEntries(records: readonly CaseRecord[]): Promise<void> {
    if (records.length > 0)
      await this.rawIndex.insertMany(
        records.map((r) => indexDoc(r)),
        { ordered: false },
      );
  }

  /**
   * The stored snapshots of these records (what a links view answers of each), by id; one read by
   * `_id` each, at once (a filter of many ids is not served by the `_id` index on our FerretDB build).
   */
  async snapshots(ids: readonly string[]): Promise<Map<string, CaseRecord>> {
    const found = await Promise.all(
      [...new Set(ids)].map((id) =>
        this.rawIndex.findOne(linkingQueries.entry(new Types.ObjectId(id)).filter, { projection: { record: 1 } }),
      ),
    );
    return new Map(found.flatMap((doc) => (doc ? [[doc.record.id, doc.record] as const] : [])));
  }

  /** Inserts a link with its pending event; a second link for the same pair is refused. */
  async insertLink(doc: LinkDoc): Promise<void> {
    try {
      await this.rawLinks.insertOne(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new LinkTakenError();
      throw err;
    }
  }

  /**
   * Marks a link's messages published: its `links.created` and `link.create`, and the pending
   * messages of its changes up to `changeSeq` (kept when a later change came meanwhile: it has them
   * too, and publishing one again is stored once).
   */
  async markPublished(id: Types.ObjectId, changeSeq = 0): Promise<void> {
    if (changeSeq > 0) {
      const cleared = await this.rawLinks.updateOne(linkingQueries.linkChange(id, changeSeq).filter, {
        $set: { published: true, pending: [] },
      });
      if (cleared.matchedCount === 1) return;
    }
    await this.rawLinks.updateOne(linkingQueries.link(id).filter, { $set: { published: true } });
  }
}

export type { LinkEvent };
