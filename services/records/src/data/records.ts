import {
  type CaseRecord,
  type CrimeType,
  centsToMoney,
  moneyToCents,
  type NamlcOrganization,
  ORGANIZATION_CODES,
  type Organization,
  type RecordInput,
} from '@nrad/contracts';
import { isDuplicateKeyError } from '@nrad/service-kit';
import mongoose, { type Connection, type Model, type mongo, Schema, Types } from 'mongoose';
import { incidentKey, nameVariants, tokensOf, words } from '../domain/text.ts';
import { type Cursor, encodeCursor } from './cursor.ts';

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
  suspectNameWords: string[];
  suspectNameVariants: string[];
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
  deletedAt: Date | null;
  deletedById: Types.ObjectId | null;
  outbox: OutboxEntry[];
  outboxPending: boolean;
  /**
   * The organizations of the records this one is linked to (from `links.created`; a set, in the
   * order added: presented sorted). Absent on documents from before links.
   */
  linkedOrganizations: Organization[];
}

const nullableString = { type: String, default: null };
const recordSchema = new Schema<RecordDoc>(
  {
    incidentNumber: { type: String, required: true },
    incidentKey: { type: String, required: true },
    suspectName: { type: String, required: true },
    suspectNameWords: { type: [String], default: [] },
    suspectNameVariants: { type: [String], default: [] },
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
    deletedAt: { type: Date, default: null },
    deletedById: { type: Schema.Types.ObjectId, default: null },
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
  },
  { collection: 'records', versionKey: false },
);
// Shaped for MongoDB: equality prefixes first, then the sort (FerretDB builds them too, and filters
// mostly in memory; see MONGO-COMPAT.md "Performance note").
recordSchema.index({ incidentKey: 1 }, { unique: true });
recordSchema.index({ organization: 1, deleted: 1, createdAt: -1, _id: -1 });
recordSchema.index({ deleted: 1, createdAt: -1, _id: -1 });
recordSchema.index({ organization: 1, deleted: 1, deletedAt: -1, _id: -1 });
recordSchema.index({ searchTokens: 1 });
recordSchema.index({ suspectNameVariants: 1 });
recordSchema.index({ outboxPending: 1 });

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

/** Uniqueness key, name words and variants, free-text tokens and the total amount. */
export function derivedFields(f: StoredFields): DerivedFields {
  const nameWords = words(f.suspectName);
  return {
    incidentKey: incidentKey(f.incidentNumber),
    suspectNameWords: nameWords,
    suspectNameVariants: nameVariants(nameWords),
    searchTokens: tokensOf(
      f.incidentNumber,
      f.suspectName,
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
    deletedAt: null,
    deletedById: null,
    outbox: [],
    outboxPending: false,
    linkedOrganizations: [],
  };
}

/** The record as the API answers with it (SPEC §3): amounts as decimal strings, dates as days. */
export function presentRecord(d: RecordDoc): CaseRecord {
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

/** The records collection. Only this module touches it. */
export interface RecordRepositoryOptions {
  /**
   * Make every single-record write conditional on the version read (`{ _id, version }`): what keeps
   * several instances from overwriting each other on MongoDB. On FerretDB that condition guards
   * nothing more than the in-process `KeyedLock` already does (its updates are read-modify-write),
   * and any filter other than `{ _id }` scans the whole collection, so there writes filter on `_id`
   * alone (the version was checked under the lock just before). Default: true.
   */
  guardedWrites?: boolean;
}

export class RecordRepository {
  readonly model: Model<RecordDoc>;
  private readonly guardedWrites: boolean;

  constructor(conn: Connection, options: RecordRepositoryOptions = {}) {
    this.model = conn.model<RecordDoc>('Record', recordSchema);
    this.guardedWrites = options.guardedWrites ?? true;
  }

  /** The filter of a write to one record read at `version`. */
  private atVersion(id: Types.ObjectId, version: number) {
    return this.guardedWrites ? { _id: id, version } : { _id: id };
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** The driver's collection, typed with the stored document (for single-document writes). */
  private get raw(): mongo.Collection<RecordDoc> {
    return this.model.collection as unknown as mongo.Collection<RecordDoc>;
  }

  /** Inserts a new record with its pending events in one write. */
  async insert(doc: RecordDoc): Promise<void> {
    try {
      await this.raw.insertOne(doc);
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new IncidentNumberTakenError();
      throw err;
    }
  }

  /** One record by id (a filter of `_id` alone: an index lookup on MongoDB, the cheapest query on FerretDB). */
  async findById(id: Types.ObjectId): Promise<RecordDoc | null> {
    return this.model.findById(id).lean<RecordDoc>();
  }

  /**
   * Whether another record holds this incident number. Checked before an edit changes the number:
   * FerretDB reports a unique-index violation on update as an internal error, not as code 11000
   * (MongoDB does), so the index alone would give a 500 there; the index still decides races.
   */
  async incidentKeyTaken(key: string, exceptId: Types.ObjectId): Promise<boolean> {
    const found = await this.model
      .findOne({ incidentKey: key, _id: op({ $ne: exceptId }) })
      .select({ _id: 1 })
      .lean();
    return found !== null;
  }

  /**
   * Applies a change (and appends its event) only if the record is still at `version`; resolves
   * false when someone else changed it first.
   */
  async updateAtVersion(
    id: Types.ObjectId,
    version: number,
    set: Partial<RecordDoc>,
    event: OutboxEntry,
  ): Promise<boolean> {
    try {
      const result = await this.raw.updateOne(this.atVersion(id, version), {
        $set: { ...set, outboxPending: true },
        $push: { outbox: event },
      });
      return result.matchedCount === 1;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new IncidentNumberTakenError();
      throw err;
    }
  }

  /** One page of the records matching `filter`, newest first by `sort`. */
  async page(
    filter: RecordFilter,
    limit: number,
    after: Cursor | undefined,
    sort: SortField,
  ): Promise<Page<RecordDoc>> {
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
    const [docs, total] = await Promise.all([
      this.model
        .find(paged)
        .sort({ [sort]: -1, _id: -1 })
        .limit(limit + 1)
        .select({ outbox: 0 })
        .lean<RecordDoc[]>(),
      this.model.countDocuments(filter),
    ]);
    const items = docs.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      docs.length > limit && last ? encodeCursor({ time: last[sort] as Date, id: last._id.toHexString() }) : null;
    return { items, total, nextCursor };
  }

  /** Id, sort time and name words of every record matching `filter` (for in-code name matching). */
  async nameCandidates(
    filter: RecordFilter,
    sort: SortField,
  ): Promise<Array<{ _id: Types.ObjectId; time: Date; suspectNameWords: string[] }>> {
    const docs = await this.model
      .find(filter)
      .sort({ [sort]: -1, _id: -1 })
      .select({ _id: 1, [sort]: 1, suspectNameWords: 1 })
      .lean<Array<Pick<RecordDoc, '_id' | 'suspectNameWords' | 'createdAt' | 'deletedAt'>>>();
    return docs.map((d) => ({ _id: d._id, time: d[sort] as Date, suspectNameWords: d.suspectNameWords }));
  }

  async findByIds(ids: Types.ObjectId[]): Promise<RecordDoc[]> {
    if (ids.length === 0) return [];
    return this.model
      .find({ _id: op({ $in: ids }) })
      .select({ outbox: 0 })
      .lean<RecordDoc[]>();
  }

  /**
   * Adds `organization` to the record's linked organizations, if the record exists; resolves
   * `missing` when it does not, `unchanged` when the organization was there already. A link is not
   * an edit: `version`, `updatedAt` and the outbox stay as they are, so no event is emitted and an
   * editor's `If-Match` stays valid. `$addToSet` makes a redelivery a no-op (atomic on MongoDB,
   * where no version condition is needed; read-modify-write inside FerretDB, so callers hold the
   * record's `KeyedLock` like every other write). The filter is `_id` alone, as on every FerretDB
   * write (see `guardedWrites`).
   */
  async addLinkedOrganization(
    id: Types.ObjectId,
    organization: Organization,
  ): Promise<'added' | 'unchanged' | 'missing'> {
    const result = await this.raw.updateOne({ _id: id }, { $addToSet: { linkedOrganizations: organization } });
    if (result.matchedCount === 0) return 'missing';
    return result.modifiedCount === 0 ? 'unchanged' : 'added';
  }

  /** Records with events not yet acknowledged by the stream, oldest change first. */
  async withPendingEvents(limit: number): Promise<Types.ObjectId[]> {
    const docs = await this.model
      .find({ outboxPending: true })
      .sort({ updatedAt: 1, _id: 1 })
      .limit(limit)
      .select({ _id: 1 })
      .lean<Array<{ _id: Types.ObjectId }>>();
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
