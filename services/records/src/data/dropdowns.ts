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

export class DropdownRepository {
  private readonly model: Model<DropdownListDoc>;

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
    return options.map((o) => ({ id: o._id.toHexString(), value: o.value }));
  }
}
