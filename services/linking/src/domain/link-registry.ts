import type { Link } from '@nrad/contracts';

export const pairKeyOf = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/**
 * Every link in memory: by id, by pair (one link per pair) and by record (both directions). A
 * rejected link (issue 34) stays, so that its pair is never linked again, but only ADMIN's views
 * show it: `active`, `forRecord` and `hasActivePair` leave it out.
 */
export class LinkRegistry {
  private readonly byId = new Map<string, Link>();
  private readonly byPair = new Map<string, string>();
  private readonly byRecord = new Map<string, Set<string>>();
  /** Links being rejected or restored: one change of a link at a time in this process. */
  private readonly changing = new Set<string>();

  get size(): number {
    return this.byId.size;
  }

  /** Adds a link, or replaces it with its new state (rejected or restored). */
  add(link: Link): void {
    this.byId.set(link.id, link);
    this.byPair.set(pairKeyOf(link.sourceRecordId, link.linkedRecordId), link.id);
    for (const recordId of [link.sourceRecordId, link.linkedRecordId]) {
      const set = this.byRecord.get(recordId) ?? new Set<string>();
      this.byRecord.set(recordId, set);
      set.add(link.id);
    }
  }

  /** Every link, rejected ones included, in no particular order. */
  all(): IterableIterator<Link> {
    return this.byId.values();
  }

  /** Every link that is not rejected. */
  *active(): Generator<Link> {
    for (const link of this.byId.values()) if (!link.rejection) yield link;
  }

  /** The pair's link, rejected or not. */
  pair(a: string, b: string): Link | undefined {
    const id = this.byPair.get(pairKeyOf(a, b));
    return id === undefined ? undefined : this.byId.get(id);
  }

  /** Whether the pair has a link, rejected or not (either way it is not made again). */
  hasPair(a: string, b: string): boolean {
    return this.byPair.has(pairKeyOf(a, b));
  }

  /** Whether the pair has a link that is not rejected. */
  hasActivePair(a: string, b: string): boolean {
    const link = this.pair(a, b);
    return link !== undefined && !link.rejection;
  }

  /**
   * Claims a link for a change (a rejection or restore), false if one is under way: FerretDB's
   * conditional update is a read and a write, so two changes of one document must not overlap.
   */
  claim(id: string): boolean {
    if (this.changing.has(id)) return false;
    this.changing.add(id);
    return true;
  }

  release(id: string): void {
    this.changing.delete(id);
  }

  /** The links of a record, oldest first; rejected ones only when asked. */
  forRecord(recordId: string, options: { withRejected?: boolean } = {}): Link[] {
    const ids = this.byRecord.get(recordId);
    if (!ids) return [];
    return [...ids]
      .map((id) => this.byId.get(id))
      .filter((l): l is Link => l !== undefined && (options.withRejected === true || !l.rejection))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }
}
