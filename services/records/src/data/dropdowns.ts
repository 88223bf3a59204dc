import type { DropdownOption, DropdownType } from '@nrad/contracts';
import { type Connection, type Model, Schema, Types } from 'mongoose';

interface OptionEntry {
  _id: Types.ObjectId;
  value: string;
  createdAt: Date;
}

/**
 * One document per list, holding its options in order. Replacing a list is then a single atomic
 * write: a failure half-way can never leave a list empty or mixed (SPEC §3 "Dropdown option":
 * each option keeps its id and creation time while it stays in the list).
 */
interface DropdownListDoc {
  _id: DropdownType;
  options: OptionEntry[];
  updatedAt: Date;
  updatedById: Types.ObjectId | null;
}

const listSchema = new Schema<DropdownListDoc>(
  {
    _id: { type: String, required: true },
    options: {
      type: [
        new Schema<OptionEntry>(
          { value: { type: String, required: true }, createdAt: { type: Date, required: true } },
          { _id: true },
        ),
      ],
      default: [],
    },
    updatedAt: { type: Date, required: true },
    updatedById: { type: Schema.Types.ObjectId, default: null },
  },
  { collection: 'dropdown_lists', versionKey: false },
);

/**
 * How long a list read for checking a record's source and country is used again (ms). Reading
 * both lists cost each create and edit about 5 ms of its 13 in the service (issue 38); they change
 * only when ADMIN saves one. This instance forgets its copy when it saves a list; another instance
 * goes on accepting a value removed there for at most this long, as it would have for a write
 * that began just before the save.
 */
export const OPTIONS_FRESH_MS = 1_000;

export class DropdownRepository {
  private readonly model: Model<DropdownListDoc>;
  private readonly recentLists = new Map<DropdownType, { at: number; options: Promise<DropdownOption[]> }>();

  constructor(conn: Connection) {
    this.model = conn.model<DropdownListDoc>('DropdownList', listSchema);
  }

  /** Creates each list with its defaults unless it exists (safe to run by every instance at start). */
  async seed(defaults: Record<DropdownType, readonly string[]>): Promise<void> {
    const now = new Date();
    for (const [type, values] of Object.entries(defaults) as Array<[DropdownType, readonly string[]]>) {
      await this.model.collection.updateOne(
        { _id: type as never },
        {
          $setOnInsert: {
            options: values.map((value) => ({ _id: new Types.ObjectId(), value, createdAt: now })),
            updatedAt: now,
            updatedById: null,
          },
        },
        { upsert: true },
      );
    }
  }

  async list(type: DropdownType): Promise<DropdownOption[]> {
    const doc = await this.model.findById(type).lean<DropdownListDoc>();
    return (doc?.options ?? []).map((o) => ({ id: o._id.toHexString(), value: o.value }));
  }

  /**
   * A list as read at most OPTIONS_FRESH_MS ago (concurrent callers share one read), for checking
   * the values a write brings; `list` reads the store each time.
   */
  recent(type: DropdownType): Promise<DropdownOption[]> {
    const now = Date.now();
    const kept = this.recentLists.get(type);
    if (kept && now - kept.at < OPTIONS_FRESH_MS) return kept.options;
    const options = this.list(type);
    this.recentLists.set(type, { at: now, options });
    // A read that failed is not kept.
    options.catch(() => {
      if (this.recentLists.get(type)?.options === options) this.recentLists.delete(type);
    });
    return options;
  }

  /** Replaces a list; values already present keep their id and creation time. */
  async replace(type: DropdownType, values: readonly string[], byUserId: string): Promise<DropdownOption[]> {
    const doc = await this.model.findById(type).lean<DropdownListDoc>();
    const existing = new Map((doc?.options ?? []).map((o) => [o.value, o]));
    const now = new Date();
    const options = values.map((value) => existing.get(value) ?? { _id: new Types.ObjectId(), value, createdAt: now });
    await this.model.collection.updateOne(
      { _id: type as never },
      { $set: { options, updatedAt: now, updatedById: new Types.ObjectId(byUserId) } },
      { upsert: true },
    );
    this.recentLists.delete(type); // after the write: a read begun during it is not kept either
    return options.map((o) => ({ id: o._id.toHexString(), value: o.value }));
  }
}
