import { ORGANIZATION_CODES } from '@nrad/contracts';
import { isFerretDb, replaceManyById } from '@nrad/service-kit';
import { type Connection, type Model, type mongo, Schema, Types } from 'mongoose';
import type { RecordState } from '../domain/figures.ts';

/** The read model's collection, and the one a rebuild writes before it takes its place. */
export const STATE_COLLECTION = 'record_state';
export const REBUILD_COLLECTION = 'record_state_rebuild';

/**
 * One record as the statistics last saw it (`_id` = the record's id): its organization, version,
 * deleted flag and the derived fields it is counted by. The figures are never stored: they are
 * summed from these documents in memory at start and moved with every applied event, so there is
 * no second document that a crash could leave out of step.
 */
export interface StateDoc extends RecordState {
  _id: Types.ObjectId;
  appliedAt: Date;
}

const stateSchema = new Schema<StateDoc>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    organization: { type: String, required: true, enum: ORGANIZATION_CODES },
    version: { type: Number, required: true, min: 1 },
    deleted: { type: Boolean, required: true },
    country: { type: String, required: true },
    internationalNexus: { type: Boolean, required: true },
    createdMonth: { type: String, required: true },
    incidentYear: { type: Number, required: true },
    seizedCents: { type: Number, required: true, min: 0 },
    detailed: { type: Boolean, required: true },
    incidentMonth: { type: String, required: true },
    crimeType: { type: String, default: null },
    crimeSubtype: { type: String, default: null },
    cyberAssisted: { type: Boolean, required: true },
    caseCents: { type: Number, required: true, min: 0 },
    confiscatedCents: { type: Number, required: true, min: 0 },
    appliedAt: { type: Date, required: true },
  },
  { collection: STATE_COLLECTION, versionKey: false },
);

function docOf(id: string, state: RecordState): StateDoc {
  const { organization, version, deleted, country, internationalNexus, createdMonth, incidentYear, seizedCents } =
    state;
  const { detailed, incidentMonth, crimeType, crimeSubtype, cyberAssisted, caseCents, confiscatedCents } = state;
  return {
    _id: new Types.ObjectId(id),
    organization,
    version,
    deleted,
    country,
    internationalNexus,
    createdMonth,
    incidentYear,
    seizedCents,
    detailed,
    incidentMonth,
    crimeType,
    crimeSubtype,
    cyberAssisted,
    caseCents,
    confiscatedCents,
    appliedAt: new Date(),
  };
}

/** Drops a collection; one that does not exist (NamespaceNotFound, 26, before MongoDB 7) is fine. */
async function dropIfExists(collection: mongo.Collection<StateDoc>): Promise<void> {
  await collection.drop().catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 26) throw err;
  });
}

/**
 * A stored state as the model holds it. One stored before the breakdowns existed (no `detailed`)
 * is marked so, with neutral values: the model counts it in the totals and in `withoutDetail`.
 */
function stateOfDoc(doc: StateDoc): [string, RecordState] {
  const { _id, appliedAt: _, ...state } = doc;
  if (state.detailed === true) return [_id.toHexString(), state];
  return [
    _id.toHexString(),
    {
      ...state,
      detailed: false,
      incidentMonth: '',
      crimeType: null,
      crimeSubtype: null,
      cyberAssisted: false,
      caseCents: 0,
      confiscatedCents: 0,
    },
  ];
}

/**
 * The write of one record's state, by `_id` (`saveMany`'s replace; exported for the plan test: an
 * index lookup on every store). Loading the model at start reads the collection whole, on purpose.
 */
export const statsQueries = {
  state: (id: Types.ObjectId) => ({ filter: { _id: id } }),
};

/** The stats service's database: the per-record states. Only this module touches it. */
export class StatsStore {
  readonly states: Model<StateDoc>;

  constructor(private readonly conn: Connection) {
    this.states = conn.model<StateDoc>('RecordState', stateSchema);
  }

  async init(): Promise<void> {
    await this.states.init();
  }

  private collection(name = STATE_COLLECTION): mongo.Collection<StateDoc> {
    const db = this.conn.db;
    if (!db) throw new Error('not connected');
    return db.collection<StateDoc>(name);
  }

  /** Every record's state, for loading the model at start. */
  async *all(): AsyncGenerator<[string, RecordState]> {
    for await (const doc of this.collection().find({}).batchSize(5000)) yield stateOfDoc(doc);
  }

  /**
   * Writes records' states, each replacing the stored one whole (by `_id`, an index write); those
   * `fresh` (new to the store, as far as the model knows) are inserted together in one write.
   */
  async saveMany(states: ReadonlyArray<{ id: string; state: RecordState; fresh: boolean }>): Promise<void> {
    const docs = (fresh: boolean) => states.filter((s) => s.fresh === fresh).map((s) => docOf(s.id, s.state));
    await replaceManyById(this.collection(), docs(true), docs(false));
  }

  /**
   * Replaces the whole read model with `entries`: written to a fresh collection first, which then
   * takes the place of the old one (one rename with `dropTarget` on MongoDB; on FerretDB, which
   * does not implement `dropTarget`, a drop and a rename). The service must not be running.
   */
  async replaceAll(entries: Iterable<[string, RecordState]>, batchSize = 2000): Promise<number> {
    const fresh = this.collection(REBUILD_COLLECTION);
    await dropIfExists(fresh);
    let written = 0;
    let batch: StateDoc[] = [];
    for (const [id, state] of entries) {
      batch.push(docOf(id, state));
      if (batch.length >= batchSize) {
        await fresh.insertMany(batch, { ordered: false });
        written += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) {
      await fresh.insertMany(batch, { ordered: false });
      written += batch.length;
    }
    if (written === 0) {
      await this.collection().deleteMany({});
      return 0;
    }
    if (await isFerretDb(this.conn)) {
      await dropIfExists(this.collection());
      await fresh.rename(STATE_COLLECTION);
    } else {
      await fresh.rename(STATE_COLLECTION, { dropTarget: true });
    }
    return written;
  }
}
