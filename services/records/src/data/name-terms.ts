import { insertManyExceptDuplicates } from '@nrad/service-kit';
import mongoose, { type Connection, type Model, type mongo, Schema } from 'mongoose';
import { deletionVariants, MIN_FUZZY_WORD, withinOneEdit } from '../domain/text.ts';

/**
 * A word or compound of suspects' names (the name vocabulary, ADR 0006) with its one-deletion
 * variants: two words within one edit of each other share a variant, so the terms near a searched
 * word are one index lookup here, and the records holding them one more in the records collection.
 */
export interface NameTermDoc {
  _id: string;
  variants: string[];
}

const nameTermSchema = new Schema<NameTermDoc>(
  { _id: { type: String, required: true }, variants: { type: [String], required: true } },
  { collection: 'name_terms', versionKey: false },
);
nameTermSchema.index({ variants: 1 });

/** The vocabulary's one read, as data (a test asks the store how it plans it). */
export const nameTermQueries = {
  /** The terms sharing a one-deletion variant with a word. */
  near(word: string) {
    return {
      filter: { variants: mongoose.trusted({ $in: deletionVariants(word) }) as { $in: string[] } },
      projection: { _id: 1 },
    };
  },
};

/** Terms this process knows to be stored, at most; past that it starts over (they are re-inserted, refused as duplicates). */
const MAX_KNOWN_TERMS = 200_000;

/**
 * The name vocabulary. Terms are added before the records that hold them are written (a term
 * without a record is harmless: it leads to no record) and never removed: a deleted record may
 * be restored, and another record may hold the same term.
 */
export class NameTermRepository {
  readonly model: Model<NameTermDoc>;
  private readonly raw: mongo.Collection<NameTermDoc>;
  /** Terms this process stored or found stored, so that a batch of records writes only new ones. */
  private readonly known = new Set<string>();

  constructor(conn: Connection) {
    this.model = conn.model<NameTermDoc>('NameTerm', nameTermSchema);
    this.raw = this.model.collection as unknown as mongo.Collection<NameTermDoc>;
  }

  async init(): Promise<void> {
    await this.model.init();
  }

  /** Stores the terms the vocabulary lacks (concurrent writers of the same term both succeed). */
  async ensure(terms: Iterable<string>): Promise<void> {
    const fresh = new Set<string>();
    for (const term of terms) if (!this.known.has(term)) fresh.add(term);
    if (fresh.size === 0) return;
    const docs = [...fresh].map((term) => ({ _id: term, variants: deletionVariants(term) }));
    await insertManyExceptDuplicates(this.raw, docs);
    if (this.known.size + fresh.size > MAX_KNOWN_TERMS) this.known.clear();
    for (const term of fresh) this.known.add(term);
  }

  /**
   * The stored terms within one edit of a searched word, and the word itself (so an exact search
   * never depends on the vocabulary). Words shorter than MIN_FUZZY_WORD match exactly.
   */
  async near(word: string): Promise<string[]> {
    if (word.length < MIN_FUZZY_WORD) return [word];
    const q = nameTermQueries.near(word);
    const docs = await this.model.find(q.filter).select(q.projection).lean<Array<{ _id: string }>>();
    return [...new Set([word, ...docs.map((d) => d._id).filter((term) => withinOneEdit(word, term))])];
  }
}
