import type { Scope } from '@nrad/service-kit';
import type { PossibleMatchDoc } from '../data/store.ts';
import { pairKeyOf } from './link-registry.ts';

/**
 * Every possible match in memory (issue 36), by id and by pair: a few per thousand records, so a
 * list is filtered and sorted here rather than in the store. A decided one stays, so that its pair
 * is never proposed again; only ADMIN's list shows it.
 */
export class PossibleMatches {
  private readonly byId = new Map<string, PossibleMatchDoc>();
  private readonly byPair = new Map<string, string>();

  get size(): number {
    return this.byId.size;
  }

  /** Adds a possible match, or replaces it with its decided state. */
  add(doc: PossibleMatchDoc): void {
    const id = doc._id.toHexString();
    this.byId.set(id, doc);
    this.byPair.set(doc.pairKey, id);
  }

  get(id: string): PossibleMatchDoc | undefined {
    return this.byId.get(id);
  }

  /** The pair's possible match, decided or not. */
  pair(a: string, b: string): PossibleMatchDoc | undefined {
    const id = this.byPair.get(pairKeyOf(a, b));
    return id === undefined ? undefined : this.byId.get(id);
  }

  /**
   * The possible matches `scope` may see — one of the two records its agency's — that `keep`
   * accepts (open ones, both records active: the caller's), best first, then oldest first.
   */
  visible(scope: Scope, keep: (doc: PossibleMatchDoc) => boolean): PossibleMatchDoc[] {
    const out: PossibleMatchDoc[] = [];
    for (const doc of this.byId.values()) {
      if (!doc.organizations.some((o) => scope.includes(o))) continue;
      if (keep(doc)) out.push(doc);
    }
    return out.sort(
      (a, b) =>
        b.confidence - a.confidence ||
        a.createdAt.getTime() - b.createdAt.getTime() ||
        a._id.toHexString().localeCompare(b._id.toHexString()),
    );
  }
}
