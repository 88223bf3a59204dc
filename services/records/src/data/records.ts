import {
  type CaseRecord,
  type CrimeType,
  centsToMoney,
  incidentKey,
  moneyToCents,
  type NamlcOrganization,
  ORGANIZATION_CODES,
  type Organization,
  type RecordInput,
} from '@nrad/contracts';
import { insertManyExceptDuplicates, isDuplicateKeyError, type Scope } from '@nrad/service-kit';
import mongoose, { type Connection, type Model, type mongo, Schema, Types } from 'mongoose';
import { incidentKeyParts, nameCompounds, tokensOf, words } from '../domain/text.ts';
import { type Cursor, encodeCursor } from './cursor.ts';
import { NameTermRepository } from './name-terms.ts';

/** An event waiting in its record's document until the stream has acknowledged it. */
export interface OutboxEntry {
  id: string;
  subject: string;
  /** The event as JSON, exactly as it will be published. */
  payload: string;
  createdAt: Date;
}

/** The user-entered fields as stored: cents for amounts, UTC midnight for dates. */
export interface StoredFields {
  incidentNumber: string;
  suspectName: string;
  suspectDob: Date;
  incidentDate: Date;
  caseCents: number;
  seizedCents: number;
  confiscatedCents: number;
  sourceOfRecord: string;
  namlcOrganization: NamlcOrganization | null;
  internationalNexus: boolean;
  cyberAssisted: boolean;
  country: string;
  crimeType: CrimeType | null;
  crimeSubtype: string | null;
  additionalInfo: string | null;
}

/** What is derived from the fields for uniqueness and search; rewritten with every change. */
interface DerivedFields {
  incidentKey: string;
  /** The key from the start of each of its parts (`incidentKeyParts`): prefix search by part. */
  incidentKeyParts: string[];
  suspectNameWords: string[];
  /** Hyphenated parts of the name joined ("mariehelene"): found written either way. */
  suspectNameCompounds: string[];
  /**
   * The name's words and compounds together, indexed: a name search looks up the terms within one
   * edit of each searched word in the name vocabulary (`name_terms`), then the records holding one.
   */
  suspectNameTerms: string[];
  /**
   * The words of the other searched texts (incident number, additional information, source, crime
   * type and subtype, country): free text is looked for here and in `suspectNameTerms`, so the
   * name's words are indexed once. Records stored before 2026-11-24 also hold the name's here.
   */
  searchTokens: string[];
  totalCents: number;
}

export interface RecordDoc extends StoredFields, DerivedFields {
  _id: Types.ObjectId;
  organization: Organization;
  createdById: Types.ObjectId;
  createdAt: Date;
  updatedAt: Date;
  version: number;
  deleted: boolean;
  /**
   * When and by whom the record was deleted; absent (never null) while it is not, so that the
   * field holds dates only and the embedded store sorts the deleted list by it in SQL.
   */
  deletedAt?: Date;
  deletedById?: Types.ObjectId;
  outbox: OutboxEntry[];
  outboxPending: boolean;
  /**
   * The organizations of the records this one is linked to (from `links.created`; a set, in the
   * order added: presented sorted). Absent on documents from before links.
   */
  linkedOrganizations: Organization[];
  /**
   * The import outbox document (`import_events`) whose request inserted this record, on records
   * an import created: only that document's relay publishes the record's `created` event and names
   * it in a `record.create` audit event. A request cut short leaves its document behind with events
   * of records its retry then creates under a document of its own; without this each would be
   * published by both. Absent on single creates and on records imported before it was kept.
   */
  importId?: Types.ObjectId;
}

const nullableString = { type: String, default: null };
const recordSchema = new Schema<RecordDoc>(
  {
    incidentNumber: { type: String, required: true },
    incidentKey: { type: String, required: true },
    incidentKeyParts: { type: [String], default: [] },
    suspectName: { type: String, required: true },
    suspectNameWords: { type: [String], default: [] },
    suspectNameCompounds: { type: [String], default: [] },
    suspectNameTerms: { type: [String], default: [] },
    suspectDob: { type: Date, required: true },
    incidentDate: { type: Date, required: true },
    caseCents: { type: Number, required: true, min: 0 },
    seizedCents: { type: Number, required: true, min: 0 },
    confiscatedCents: { type: Number, required: true, min: 0 },
    totalCents: { type: Number, required: true, min: 0 },
    sourceOfRecord: { type: String, required: true },
    namlcOrganization: nullableString,
    internationalNexus: { type: Boolean, required: true },
    cyberAssisted: { type: Boolean, required: true },
    country: { type: String, required: true },
    crimeType: nullableString,
    crimeSubtype: nullableString,
    additionalInfo: nullableString,
    searchTokens: { type: [String], default: [] },
    organization: { type: String, required: true, enum: ORGANIZATION_CODES },
    createdById: { type: Schema.Types.ObjectId, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    version: { type: Number, required: true, min: 1 },
    deleted: { type: Boolean, required: true, default: false },
    deletedAt: { type: Date },
    deletedById: { type: Schema.Types.ObjectId },
    outbox: {
      type: [
        new Schema<OutboxEntry>(
          {
            id: { type: String, required: true },
            subject: { type: String, required: true },
            payload: { type: String, required: true },
            createdAt: { type: Date, required: true },
          },
          { _id: false },
        ),
      ],
      default: [],
    },
    outboxPending: { type: Boolean, required: true, default: false },
    linkedOrganizations: { type: [{ type: String, enum: ORGANIZATION_CODES }], default: [] },
    importId: { type: Schema.Types.ObjectId },
  },
  { collection: 'records', versionKey: false },
);
/**
 * The search filters that compare a stored field of few distinct values for equality (a country,
 * a crime type, a flag: thousands of records each): each has an index after the scope
 * (organization, deleted) and before the list's order, so a page and its total are both read from
 * the index (ADR 0006).
 */
export const EQUALITY_SEARCH_FIELDS = ['country', 'crimeType', 'cyberAssisted'] as const satisfies ReadonlyArray<
  keyof RecordDoc
>;

/**
 * The search filters that compare a field of many distinct values for equality (a day, an amount
 * in cents: a handful of records each): a single-field index finds them, and the scope and the
 * order are applied to those few. Each index entry is one value, not five, at a place no other
 * insert is near: on our FerretDB build the five-part indexes these replace cost an upload about
 * a fifth of its time (ADR 0006).
 */
export const SELECTIVE_SEARCH_FIELDS = [
  'suspectDob',
  'incidentDate',
  'totalCents',
  'caseCents',
  'seizedCents',
  'confiscatedCents',
] as const satisfies ReadonlyArray<keyof RecordDoc>;

/**
 * Indexes of earlier versions that init() drops: the deletion variants records held before the
 * name vocabulary, and the five-part ones SELECTIVE_SEARCH_FIELDS replaced.
 */
const LEGACY_INDEXES = [
  'suspectNameVariants_1',
  ...SELECTIVE_SEARCH_FIELDS.map((field) => `organization_1_deleted_1_${field}_1_createdAt_-1__id_-1`),
];

// Equality prefixes first, then the sort: indexes MongoDB and our FerretDB build use alike (on
// FerretDB an array field's single-field index is kept as an elements table; ADR 0002).
recordSchema.index({ incidentKey: 1 }, { unique: true });
recordSchema.index({ incidentKeyParts: 1 });
recordSchema.index({ organization: 1, deleted: 1, createdAt: -1, _id: -1 });
recordSchema.index({ deleted: 1, createdAt: -1, _id: -1 });
recordSchema.index({ organization: 1, deleted: 1, deletedAt: -1, _id: -1 });
recordSchema.index({ deleted: 1, deletedAt: -1, _id: -1 });
recordSchema.index({ searchTokens: 1 });
recordSchema.index({ suspectNameTerms: 1 });
recordSchema.index({ outboxPending: 1 });
for (const field of EQUALITY_SEARCH_FIELDS) {
  recordSchema.index({ organization: 1, deleted: 1, [field]: 1, createdAt: -1, _id: -1 });
}
for (const field of SELECTIVE_SEARCH_FIELDS) recordSchema.index({ [field]: 1 });

/** The migration that gave records `suspectNameTerms` (RecordRepository.migrateToNameTerms). */
const NAME_TERMS_MIGRATION = 'record-name-terms';
const MIGRATION_BATCH = 1000;
const MIGRATION_WRITES_PER_COMMAND = 50;

/** The terms of a name as records hold them: its words and its compounds, each once. */
export function nameTermsOf(name: string): string[] {
  return nameTerms(words(name), nameCompounds(name));
}

function nameTerms(nameWords: readonly string[], compounds: readonly string[]): string[] {
  return [...new Set([...nameWords, ...compounds])];
}

/** `YYYY-MM-DD` → that day at UTC midnight, and back. */
export const dayToDate = (day: string) => new Date(`${day}T00:00:00.000Z`);
export const dateToDay = (d: Date) => d.toISOString().slice(0, 10);

/** The stored form of validated input. */
export function storedFields(input: RecordInput): StoredFields {
  return {
    incidentNumber: input.incidentNumber,
    suspectName: input.suspectName,
    suspectDob: dayToDate(input.suspectDob),
    incidentDate: dayToDate(input.incidentDate),
    caseCents: moneyToCents(input.caseAmount),
    seizedCents: moneyToCents(input.seizedAmount),
    confiscatedCents: moneyToCents(input.confiscatedAmount),
    sourceOfRecord: input.sourceOfRecord,
    namlcOrganization: input.namlcOrganization ?? null,
    internationalNexus: input.internationalNexus,
    cyberAssisted: input.cyberAssisted,
    country: input.country,
    crimeType: input.crimeType ?? null,
    crimeSubtype: input.crimeSubtype ?? null,
    additionalInfo: input.additionalInfo ?? null,
  };
}

/** Uniqueness key and its parts, name words, compounds and terms, free-text tokens, the total. */
export function derivedFields(f: StoredFields): DerivedFields {
  const nameWords = words(f.suspectName);
  const compounds = nameCompounds(f.suspectName);
  const key = incidentKey(f.incidentNumber);
  return {
    incidentKey: key,
    incidentKeyParts: incidentKeyParts(key),
    suspectNameWords: nameWords,
    suspectNameCompounds: compounds,
    suspectNameTerms: nameTerms(nameWords, compounds),
    searchTokens: tokensOf(
      f.incidentNumber,
      f.additionalInfo,
      f.sourceOfRecord,
      f.crimeType,
      f.crimeSubtype,
      f.country,
    ),
    totalCents: f.caseCents + f.seizedCents + f.confiscatedCents,
  };
}

/**
 * A complete new record document (no events yet). Exported for seeding benchmarks and tests with
 * exactly what the service itself would store.
 */
export function newRecordDoc(
  input: RecordInput,
  owner: { organization: Organization; createdById: string },
  now = new Date(),
  id = new Types.ObjectId(),
): RecordDoc {
  const fields = storedFields(input);
  return {
    _id: id,
    ...fields,
    ...derivedFields(fields),
    organization: owner.organization,
    createdById: new Types.ObjectId(owner.createdById),
    createdAt: now,
    updatedAt: now,
    version: 1,
    deleted: false,
    outbox: [],
    outboxPending: false,
    linkedOrganizations: [],
  };
}

/** The record as the API answers with it (SPEC §3): amounts as decimal strings, dates as days. */
export function presentRecord(d: ListedDoc): CaseRecord {
  return {
    id: d._id.toHexString(),
    incidentNumber: d.incidentNumber,
    suspectName: d.suspectName,
    suspectDob: dateToDay(d.suspectDob),
    incidentDate: dateToDay(d.incidentDate),
    caseAmount: centsToMoney(d.caseCents),
    seizedAmount: centsToMoney(d.seizedCents),
    confiscatedAmount: centsToMoney(d.confiscatedCents),
    sourceOfRecord: d.sourceOfRecord,
    namlcOrganization: d.namlcOrganization ?? null,
    internationalNexus: d.internationalNexus,
    cyberAssisted: d.cyberAssisted,
    country: d.country,
    crimeType: d.crimeType ?? null,
    crimeSubtype: d.crimeSubtype ?? null,
    additionalInfo: d.additionalInfo ?? null,
    organization: d.organization,
    createdById: d.createdById.toHexString(),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
    deleted: d.deleted,
    deletedAt: d.deletedAt ? d.deletedAt.toISOString() : null,
    deletedById: d.deletedById ? d.deletedById.toHexString() : null,
    version: d.version,
    ...presentLinks(d.linkedOrganizations),
  };
}

/** The Linked flag and the linked organizations, distinct and sorted, as presented. */
export function presentLinks(stored: readonly Organization[] | undefined) {
  const linkedOrganizations = [...new Set(stored ?? [])].sort();
  return { linked: linkedOrganizations.length > 0, linkedOrganizations };
}

export class IncidentNumberTakenError extends Error {
  override name = 'IncidentNumberTakenError';
}

/** A filter on records, built only by this module's query builders (never from raw input). */
export type RecordFilter = Record<string, unknown>;

/**
 * What a list or search asks of records besides their scope: active or deleted ones, and further
 * conditions (all must hold). The repository adds the scope itself (`scopedFilter`).
 */
export interface RecordCriteria {
  deleted: boolean;
  and?: readonly RecordFilter[];
}

/**
 * The filter of `criteria` within `scope`: `{ deleted, organization }` first (the prefix of the
 * lists' and searches' indexes; no organization for an all-agency scope), then the conditions.
 */
export function scopedFilter(scope: Scope, criteria: RecordCriteria): RecordFilter {
  const base: RecordFilter = { deleted: criteria.deleted, ...scope.filter() };
  return criteria.and?.length ? { $and: [base, ...criteria.and] } : base;
}

/** One page of a list, newest first. */
export interface Page<T> {
  items: T[];
  total: number;
  nextCursor: string | null;
}

/** The sort of a list: by creation (active records) or by deletion time (the deleted list). */
export type SortField = 'createdAt' | 'deletedAt';

/** Marks an operator object as built here, so `sanitizeFilter` keeps it (user input never is one). */
export const op = <T extends object>(o: T): T => mongoose.trusted(o) as T;

/**
 * A read of the records collection as data: the one place each query's filter, order and size are
 * written, so that the repository runs it and a test can ask the store how it plans it
 * (`test/query-plans.test.ts`: every query must use an index).
 */
export interface RecordQuery {
  filter: RecordFilter;
  sort?: Record<string, 1 | -1>;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

/**
 * The fields lists and searches read: those the record is presented with, and the admin list's
 * total amount. The search fields (tokens, name variants, key parts) and the outbox stay in the
 * store: on FerretDB our build leaves them out of the documents it reads, which is most of a
 * record's size (ADR 0002); MongoDB sends less.
 */
export const LISTED_FIELDS = [
  'incidentNumber',
  'suspectName',
  'suspectDob',
  'incidentDate',
  'caseCents',
  'seizedCents',
  'confiscatedCents',
  'totalCents',
  'sourceOfRecord',
  'namlcOrganization',
  'internationalNexus',
  'cyberAssisted',
  'country',
  'crimeType',
  'crimeSubtype',
  'additionalInfo',
  'organization',
  'createdById',
  'createdAt',
  'updatedAt',
  'deleted',
  'deletedAt',
  'deletedById',
  'version',
  'linkedOrganizations',
] as const satisfies ReadonlyArray<keyof RecordDoc>;
const listed = Object.fromEntries(LISTED_FIELDS.map((f) => [f, 1 as const]));

/** A record as lists read it. */
export type ListedDoc = Pick<RecordDoc, '_id' | (typeof LISTED_FIELDS)[number]>;

/** The newest-first order of a list, with the id breaking ties (a total order: keyset paging). */
const newestFirst = (sort: SortField) => ({ [sort]: -1 as const, _id: -1 as const });

/** The queries of the repository (exported for the plan tests). */
export const recordQueries = {
  /** One page of the records matching `filter` after `after`, plus one to know whether more follow. */
  page(scope: Scope, criteria: RecordCriteria, limit: number, after: Cursor | undefined, sort: SortField): RecordQuery {
    const filter = scopedFilter(scope, criteria);
    const paged = after
      ? {
          $and: [
            filter,
            {
              $or: [
                { [sort]: op({ $lt: after.time }) },
                { [sort]: after.time, _id: op({ $lt: new Types.ObjectId(after.id) }) },
              ],
            },
          ],
        }
      : filter;
    return { filter: paged, sort: newestFirst(sort), limit: limit + 1, projection: listed };
  },
  /** The total of a list or search (counted by the store). */
  count(scope: Scope, criteria: RecordCriteria): RecordQuery {
    return { filter: scopedFilter(scope, criteria) };
  },
  /** The candidates of a name search: id, sort time and name words of every record matching `filter`. */
  nameCandidates(scope: Scope, criteria: RecordCriteria, sort: SortField): RecordQuery {
    return {
      filter: scopedFilter(scope, criteria),
      sort: newestFirst(sort),
      projection: { _id: 1, [sort]: 1, suspectNameWords: 1, suspectNameCompounds: 1 },
    };
  },
  byIds(ids: Types.ObjectId[]): RecordQuery {
    return { filter: { _id: op({ $in: ids }) }, projection: listed };
  },
  /** Another record holding an incident key. */
  incidentKeyTaken(key: string, exceptId: Types.ObjectId): RecordQuery {
    return {
      filter: { incidentKey: key, _id: op({ $ne: exceptId }) },
      limit: 1,
      projection: { _id: 0, organization: 1 },
    };
  },
  /** Which of these ids are records (an import's retry finds the records it made). */
  existingIds(ids: Types.ObjectId[]): RecordQuery {
    return { filter: { _id: op({ $in: ids }) }, projection: { _id: 1 } };
  },
  /** Which of these ids are records, and the import outbox document each was inserted by. */
  importOwners(ids: Types.ObjectId[]): RecordQuery {
    return { filter: { _id: op({ $in: ids }) }, projection: { _id: 1, importId: 1 } };
  },
  /** Which of these incident keys records hold, and the organization of each holder. */
  takenIncidentKeys(keys: string[]): RecordQuery {
    return { filter: { incidentKey: op({ $in: keys }) }, projection: { _id: 0, incidentKey: 1, organization: 1 } };
  },
  /** Records with events not yet acknowledged by the stream, oldest change first. */
  pendingEvents(limit: number): RecordQuery {
    return { filter: { outboxPending: true }, sort: { updatedAt: 1, _id: 1 }, limit, projection: { _id: 1 } };
  },
};

/** The records collection. Only this module touches it. */
export class RecordRepository {
  readonly model: Model<RecordDoc>;
  /** The vocabulary of the terms of suspects' names, written before the records holding them. */
  readonly nameTerms: NameTermRepository;

  constructor(conn: Connection) {
    this.model = conn.model<RecordDoc>('Record', recordSchema);
    this.nameTerms = new NameTermRepository(conn);
  }

  /**
   * The filter of a write to one record read at `version`: the write applies only if nobody
   * changed the record since (atomic on MongoDB; on FerretDB, whose updates are read-modify-write,
   * the in-process `KeyedLock` serializes writes too). An index lookup by `_id` on both stores.
   */
  private atVersion(id: Types.ObjectId, version: number) {
    return { _id: id, version };
  }

  async init(): Promise<void> {
    await this.model.init();
    await this.nameTerms.init();
    await this.migrateToNameTerms();
    const legacy = new Set<string>(LEGACY_INDEXES);
    for (const index of await this.model.collection.indexes()) {
      if (index.name && legacy.has(index.name)) await this.model.collection.dropIndex(index.name);
    }
  }

  /**
   * Gives the records stored before the name vocabulary (ADR 0006) their `suspectNameTerms`, adds
   * those to the vocabulary and removes the deletion variants they held instead (init() drops
   * their index); once per database (remembered in `migrations`), in `_id` order, batch by batch,
   * so a run cut short goes on where it stopped. A record written meanwhile already has its terms
   * and is left be.
   */
  private async migrateToNameTerms(): Promise<void> {
    const migrations = this.model.db.collection<{ _id: string; at: Date }>('migrations');
    if (await migrations.findOne({ _id: NAME_TERMS_MIGRATION })) return;
    const legacy = this.model.collection as unknown as mongo.Collection<RecordDoc & { suspectNameVariants?: string[] }>;
    let after: Types.ObjectId | undefined;
    for (;;) {
      const docs = await legacy
        .find(after ? { _id: { $gt: after } } : {}, {
          projection: { _id: 1, suspectName: 1, suspectNameTerms: 1 },
          sort: { _id: 1 },
          limit: MIGRATION_BATCH,
        })
        .toArray();
      const last = docs.at(-1);
      if (!last) break;
      after = last._id;
      const missing = docs
        .filter((d) => !Array.isArray(d.suspectNameTerms))
        .map((d) => ({ _id: d._id, name: d.suspectName, terms: nameTermsOf(d.suspectName) }));
      if (missing.length === 0) continue;
      await this.nameTerms.ensure(missing.flatMap((d) => d.terms));
      // A few statements per command: FerretDB 1.24 keeps each statement's read open until the
      // command ends, and its SQLite pool of 100 connections then deadlocks at the 100th.
      for (let at = 0; at < missing.length; at += MIGRATION_WRITES_PER_COMMAND) {
        await legacy.bulkWrite(
          missing.slice(at, at + MIGRATION_WRITES_PER_COMMAND).map((d) => ({
            updateOne: {
              // By _id and name (both pushed down on our FerretDB build, where `$exists` is not):
              // an edit of the name meanwhile wrote the new name's terms.
              filter: { _id: d._id, suspectName: d.name },
              update: { $set: { suspectNameTerms: d.terms }, $unset: { suspectNameVariants: '' } },
            },
          })),
          { ordered: false },
        );
      }
    }
    await migrations.updateOne({ _id: NAME_TERMS_MIGRATION }, { $setOnInsert: { at: new Date() } }, { upsert: true });
  }

  /** The driver's collection, typed with the stored document (for single-document writes). */
  private get raw(): mongo.Collection<RecordDoc> {
    return this.model.collection as unknown as mongo.Collection<RecordDoc>;
  }

  /** Runs a read. */
  private find<T>(q: RecordQuery) {
    let query = this.model.find(q.filter);
    if (q.sort) query = query.sort(q.sort);
    if (q.limit !== undefined) query = query.limit(q.limit);
    if (q.projection) query = query.select(q.projection);
    return query.lean<T[]>();
  }

  /** Inserts a new record of `scope` with its pending events in one write. */
  async insert(scope: Scope, doc: RecordDoc): Promise<void> {
    if (!scope.includes(doc.organization)) throw new Error(`a record of ${doc.organization} is outside ${scope}`);
    await this.nameTerms.ensure(doc.suspectNameTerms);
    try {
      await this.raw.insertOne(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new IncidentNumberTakenError();
      throw err;
    }
  }

  /**
   * Inserts new records in one unordered write; resolves the ids of those refused as duplicates
   * (their `_id` or incident number is taken), having inserted the rest.
   */
  async insertMany(docs: RecordDoc[]): Promise<Types.ObjectId[]> {
    await this.nameTerms.ensure(docs.flatMap((d) => d.suspectNameTerms));
    return (await insertManyExceptDuplicates(this.raw, docs)).map((at) => (docs[at] as RecordDoc)._id);
  }

  async existingIds(ids: Types.ObjectId[]): Promise<Types.ObjectId[]> {
    if (ids.length === 0) return [];
    return (await this.find<{ _id: Types.ObjectId }>(recordQueries.existingIds(ids))).map((d) => d._id);
  }

  /**
   * Which of these ids are records: each one's id (hex) → the id (hex) of the import outbox
   * document that inserted it, or null for a record without one (a single create, an older import).
   */
  async importOwners(ids: Types.ObjectId[]): Promise<Map<string, string | null>> {
    const owners = new Map<string, string | null>();
    if (ids.length === 0) return owners;
    const docs = await this.find<{ _id: Types.ObjectId; importId?: Types.ObjectId }>(recordQueries.importOwners(ids));
    for (const d of docs) owners.set(d._id.toHexString(), d.importId ? d.importId.toHexString() : null);
    return owners;
  }

  async takenIncidentKeys(keys: string[]): Promise<string[]> {
    return [...(await this.incidentKeyHolders(keys)).keys()];
  }

  /** Which of these incident keys records hold: each one → the organization of its record. */
  async incidentKeyHolders(keys: string[]): Promise<Map<string, Organization>> {
    if (keys.length === 0) return new Map();
    const docs = await this.find<{ incidentKey: string; organization: Organization }>(
      recordQueries.takenIncidentKeys(keys),
    );
    return new Map(docs.map((d) => [d.incidentKey, d.organization]));
  }

  /**
   * One record of `scope` by id, or null (another agency's record is as missing). Read by id alone
   * and the scope checked here: an index lookup on MongoDB; on FerretDB's SQLite backend the only
   * filter pushed down to SQL (ADR 0002), every other filter being applied after a full read.
   */
  async findById(scope: Scope, id: Types.ObjectId): Promise<RecordDoc | null> {
    const doc = await this.model.findById(id).lean<RecordDoc>();
    return doc && scope.includes(doc.organization) ? doc : null;
  }

  /**
   * The organization of the record (other than `exceptId`) holding this incident number, or null.
   * Checked before an edit changes the number: FerretDB reports a unique-index violation on update
   * as an internal error, not as code 11000 (MongoDB does), so the index alone would give a 500
   * there; the index still decides races. After a create refused by the index it says whether the
   * number is another agency's (a probe, docs/adr/0015).
   */
  async incidentKeyHolder(key: string, exceptId: Types.ObjectId): Promise<Organization | null> {
    const [doc] = await this.find<{ organization: Organization }>(recordQueries.incidentKeyTaken(key, exceptId));
    return doc?.organization ?? null;
  }

  /**
   * Applies a change (and appends its events: the `records.*` one and the audit one) only if the
   * record is still at `version`; resolves false when someone else changed it first. `unset` names
   * fields the change removes.
   */
  async updateAtVersion(
    scope: Scope,
    id: Types.ObjectId,
    version: number,
    set: Partial<RecordDoc>,
    events: readonly OutboxEntry[],
    unset: ReadonlyArray<keyof RecordDoc> = [],
  ): Promise<boolean> {
    if (set.suspectNameTerms) await this.nameTerms.ensure(set.suspectNameTerms);
    try {
      const result = await this.raw.updateOne(
        { ...this.atVersion(id, version), ...scope.filter() },
        {
          $set: { ...set, outboxPending: true },
          $push: { outbox: { $each: [...events] } },
          ...(unset.length ? { $unset: Object.fromEntries(unset.map((f) => [f, ''])) } : {}),
        },
      );
      return result.matchedCount === 1;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new IncidentNumberTakenError();
      throw err;
    }
  }

  /**
   * One page of the records of `scope` matching `criteria`, newest first by `sort`, and their total
   * (`total`: where it comes from, counted by default).
   */
  async page(
    scope: Scope,
    criteria: RecordCriteria,
    limit: number,
    after: Cursor | undefined,
    sort: SortField,
    total: () => Promise<number> = () => this.count(scope, criteria),
  ): Promise<Page<ListedDoc>> {
    const [docs, count] = await Promise.all([
      this.find<ListedDoc>(recordQueries.page(scope, criteria, limit, after, sort)),
      total(),
    ]);
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      docs.length > limit && last ? encodeCursor({ time: last[sort] as Date, id: last._id.toHexString() }) : null;
    return { items, total: count, nextCursor };
  }

  /** How many records of `scope` match `criteria`. */
  async count(scope: Scope, criteria: RecordCriteria): Promise<number> {
    return this.model.countDocuments(recordQueries.count(scope, criteria).filter);
  }

  /**
   * Id, sort time, name words and compounds of every record of `scope` matching `criteria` (for
   * in-code name matching).
   */
  async nameCandidates(
    scope: Scope,
    criteria: RecordCriteria,
    sort: SortField,
  ): Promise<Array<{ _id: Types.ObjectId; time: Date; suspectNameWords: string[]; suspectNameCompounds: string[] }>> {
    const docs = await this.find<
      Pick<RecordDoc, '_id' | 'suspectNameWords' | 'suspectNameCompounds' | 'createdAt' | 'deletedAt'>
    >(recordQueries.nameCandidates(scope, criteria, sort));
    return docs.map((d) => ({
      _id: d._id,
      time: d[sort] as Date,
      suspectNameWords: d.suspectNameWords,
      // absent on documents stored before compounds
      suspectNameCompounds: d.suspectNameCompounds ?? [],
    }));
  }

  /** The records of `scope` among these ids (read by id, the scope checked here as in findById). */
  async findByIds(scope: Scope, ids: Types.ObjectId[]): Promise<ListedDoc[]> {
    if (ids.length === 0) return [];
    return (await this.find<ListedDoc>(recordQueries.byIds(ids))).filter((d) => scope.includes(d.organization));
  }

  /**
   * Adds `organization` to the record's linked organizations, if the record exists; resolves
   * `missing` when it does not, `unchanged` when the organization was there already. A link is not
   * an edit: `version`, `updatedAt` and the outbox stay as they are, so no event is emitted and an
   * editor's `If-Match` stays valid. `$addToSet` makes a redelivery a no-op (atomic on MongoDB,
   * where no version condition is needed; read-modify-write inside FerretDB, so callers hold the
   * record's `KeyedLock` like every other write).
   */
  async addLinkedOrganization(
    id: Types.ObjectId,
    organization: Organization,
  ): Promise<'added' | 'unchanged' | 'missing'> {
    const result = await this.raw.updateOne({ _id: id }, { $addToSet: { linkedOrganizations: organization } });
    if (result.matchedCount === 0) return 'missing';
    return result.modifiedCount === 0 ? 'unchanged' : 'added';
  }

  /**
   * Sets the record's linked organizations whole (a link rejected or restored: the linking service
   * sends each record's organizations after the change). Not an edit, like addLinkedOrganization.
   */
  async setLinkedOrganizations(id: Types.ObjectId, organizations: readonly Organization[]): Promise<'set' | 'missing'> {
    const result = await this.raw.updateOne({ _id: id }, { $set: { linkedOrganizations: [...organizations] } });
    return result.matchedCount === 0 ? 'missing' : 'set';
  }

  /** Records with events not yet acknowledged by the stream, oldest change first. */
  async withPendingEvents(limit: number): Promise<Types.ObjectId[]> {
    const docs = await this.find<{ _id: Types.ObjectId }>(recordQueries.pendingEvents(limit));
    return docs.map((d) => d._id);
  }

  /** The pending events of one record and the version they belong to. */
  async outboxOf(id: Types.ObjectId): Promise<{ version: number; outbox: OutboxEntry[] } | null> {
    return this.model.findById(id).select({ version: 1, outbox: 1 }).lean<{ version: number; outbox: OutboxEntry[] }>();
  }

  /** Replaces the pending events of a record still at `version`; false when it changed meanwhile. */
  async setOutbox(id: Types.ObjectId, version: number, outbox: OutboxEntry[]): Promise<boolean> {
    const result = await this.raw.updateOne(this.atVersion(id, version), {
      $set: { outbox, outboxPending: outbox.length > 0 },
    });
    return result.matchedCount === 1;
  }
}
