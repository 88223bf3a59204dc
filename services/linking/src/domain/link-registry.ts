import type { Link } from '@nrad/contracts';
import type { Scope } from '@nrad/service-kit';

export const pairKeyOf = (a: string, b: string) => (a < b ? `${a}:${b}` : `${b}:${a}`);

/**
 * Every link in memory: by id, by pair (one link per pair) and by record (both directions). A
 * rejected link (issue 34) stays, so that its pair is never linked again, but only ADMIN's views
 * show it: `active` and `forRecord` leave it out.
 */
export class LinkRegistry {
  private readonly byId = new Map<string, Link>();
  private readonly byPair = new Map<string, string>();
  private readonly byRecord = new Map<string, Set<string>>();

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

  /** Every link of `scope` (one of its two records the scope's) that is not rejected. */
  *active(scope: Scope): Generator<Link> {
    for (const link of this.byId.values()) {
      if (link.rejection) continue;
      if (scope.includes(link.sourceOrganization) || scope.includes(link.linkedOrganization)) yield link;
    }
  }

  /** Every rejected link (a label: different people). */
  *rejected(): Generator<Link> {
    for (const link of this.byId.values()) if (link.rejection) yield link;
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
