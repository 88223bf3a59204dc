import type { LabelledPair } from '@nrad/matching';
import type { Scope } from '@nrad/service-kit';
import type { PossibleMatchDoc } from '../data/store.ts';
import { type LinkRegistry, pairKeyOf } from './link-registry.ts';
import type { MatchIndex } from './match-index.ts';

/** What a person decided of a pair of records (issue 36): a label for the estimate and ADMIN's figures. */
export interface Decision {
  readonly recordIds: readonly [string, string];
  /** The confidence the pair was proposed or linked at. */
  readonly confidence: number;
  /** The same person (a confirmed possible match), or two people (rejected, or a rejected link). */
  readonly same: boolean;
}

/**
 * Every decision, one per pair, the later word counting: a confirmed or rejected possible match,
 * then each rejected link (a link rejected after its possible match was confirmed is a rejection).
 */
export function decisions(links: LinkRegistry, possibleMatches: PossibleMatches): Decision[] {
  const byPair = new Map<string, Decision>();
  for (const doc of possibleMatches.decided()) {
    byPair.set(doc.pairKey, {
      recordIds: doc.recordIds,
      confidence: doc.confidence,
      same: doc.decision?.kind === 'confirmed',
    });
  }
  for (const link of links.rejected()) {
    const pairKey = pairKeyOf(link.sourceRecordId, link.linkedRecordId);
    byPair.set(pairKey, {
      recordIds: [link.sourceRecordId, link.linkedRecordId],
      confidence: byPair.get(pairKey)?.confidence ?? link.confidence,
      same: false,
    });
  }
  return [...byPair.values()];
}

/** The decisions as the estimate takes them: both records as the index holds them (known ones only). */
export function labelledPairs(index: MatchIndex, decided: readonly Decision[]): LabelledPair[] {
  return decided.flatMap(({ recordIds: [x, y], same }) => {
    const a = index.get(x);
    const b = index.get(y);
    return a && b ? [{ a: a.prepared, b: b.prepared, same }] : [];
  });
}

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
   * accepts (open ones, both records active: the caller's), in no order (see bestFirst).
   */
  *visible(scope: Scope, keep: (doc: PossibleMatchDoc) => boolean): Generator<PossibleMatchDoc> {
    for (const doc of this.byId.values()) {
      if (doc.organizations.some((o) => scope.includes(o)) && keep(doc)) yield doc;
    }
  }

  /** Every decided possible match. */
  *decided(): Generator<PossibleMatchDoc> {
    for (const doc of this.byId.values()) if (doc.decision !== null) yield doc;
  }
}

/** Best first, then oldest first (a list's order). */
export function bestFirst(docs: PossibleMatchDoc[]): PossibleMatchDoc[] {
  return docs.sort(
    (a, b) =>
      b.confidence - a.confidence ||
      a.createdAt.getTime() - b.createdAt.getTime() ||
      a._id.toHexString().localeCompare(b._id.toHexString()),
  );
}
