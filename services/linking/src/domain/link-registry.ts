import type { Link } from '@nrad/contracts';

export const pairKeyOf = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/** Every link in memory: by id, by pair (one link per pair) and by record (both directions). */
export class LinkRegistry {
  private readonly byId = new Map<string, Link>();
  private readonly byPair = new Map<string, string>();
  private readonly byRecord = new Map<string, Set<string>>();

  get size(): number {
    return this.byId.size;
  }

  add(link: Link): void {
    this.byId.set(link.id, link);
    this.byPair.set(pairKeyOf(link.sourceRecordId, link.linkedRecordId), link.id);
    for (const recordId of [link.sourceRecordId, link.linkedRecordId]) {
      const set = this.byRecord.get(recordId) ?? new Set<string>();
      this.byRecord.set(recordId, set);
      set.add(link.id);
    }
  }

  /** Every link, in no particular order. */
  all(): IterableIterator<Link> {
    return this.byId.values();
  }

  hasPair(a: string, b: string): boolean {
    return this.byPair.has(pairKeyOf(a, b));
  }

  /** The links of a record, oldest first. */
  forRecord(recordId: string): Link[] {
    const ids = this.byRecord.get(recordId);
    if (!ids) return [];
    return [...ids]
      .map((id) => this.byId.get(id))
      .filter((l): l is Link => l !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }
}
