import type { Organization } from '@nrad/contracts';

/** Which list a total is of: an agency's active or deleted records, or every agency's (ADMIN). */
export interface ListScope {
  organization: Organization | '*';
  deleted: boolean;
}

/** How a change moves the totals of its record's organization. */
export interface TotalsDelta {
  organization: Organization;
  /** Records added to (or, negative, taken from) the active list. */
  active: number;
  /** Records added to (or taken from) the deleted list. */
  deleted: number;
}

interface Entry {
  total: number;
  storedAt: number;
}

const keyOf = (s: ListScope) => `${s.organization}|${s.deleted ? 'deleted' : 'active'}`;

/** Changes of a record whose organization is not known before (an ADMIN's delete or restore). */
const ANY = '?';

/**
 * The totals of the record lists (an agency's 100,000 records counted for every page: 10–25 ms of
 * the store's time each, most of a list's cost under load), kept for `ttlMs` and moved by this
 * process's own changes as they are made, so that a list shows a total that includes a record
 * created, deleted or restored here the moment before.
 *
 * A total is kept only if it was counted while no change of its organization was under way here
 * (none began before the count ended, none was unfinished when it began): it is then exactly the
 * store's count after every change finished before it, and each change that finishes later moves
 * it. A change whose outcome is unknown (the store's answer lost) forgets its organization's totals.
 *
 * Past `ttlMs` a kept total is still answered — it holds every change made here — while it is
 * counted again in the background, once for everyone who asks meanwhile; the new count replaces it
 * when it was counted cleanly, and is tried again after half of `ttlMs` when it was not. Changes
 * another instance makes are so seen within `ttlMs` and a count (issue 38: under the load test,
 * with a change of each agency's records every few hundred milliseconds, hardly any count was
 * clean, so every list counted again — 12 counts of 100,000 records a second, each one waited for).
 * A total not kept (none yet, or forgotten) is counted and waited for, once for all who ask at
 * the same time. With `ttlMs` 0 nothing is kept: every list counts (a benchmark's like for like).
 */
export class ListTotals {
  private readonly entries = new Map<string, Entry>();
  /** Counts under way, by list. */
  private readonly counting = new Map<string, Promise<number>>();
  /** Changes begun / under way per organization, '*' for every change, ANY for unknown ones. */
  private readonly begun = new Map<string, number>();
  private readonly running = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The list's total: kept (counted again in the background once past its time), or counted by `count`. */
  async total(scope: ListScope, count: () => Promise<number>): Promise<number> {
    if (this.ttlMs <= 0) return count();
    const key = keyOf(scope);
    const kept = this.entries.get(key);
    if (kept && this.now() - kept.storedAt < this.ttlMs) return kept.total;
    const counted = this.recount(key, scope, count);
    if (!kept) return counted;
    counted.catch(() => undefined); // the next list past its time tries again
    return kept.total;
  }

  /** Counts `scope` once for every caller meanwhile, keeping the total when it was counted cleanly. */
  private recount(key: string, scope: ListScope, count: () => Promise<number>): Promise<number> {
    const running = this.counting.get(key);
    if (running) return running;
    const org = scope.organization;
    const begunBefore = this.changes('begun', org);
    const clean = this.changes('running', org) === 0;
    const counted = count()
      .then((total) => {
        if (clean && this.changes('begun', org) === begunBefore) {
          this.entries.set(key, { total, storedAt: this.now() });
        } else {
          // Not clean: a kept total (moved by every change here) stays, and is counted again later.
          const kept = this.entries.get(key);
          if (kept) kept.storedAt = Math.max(kept.storedAt, this.now() - this.ttlMs / 2);
        }
        return total;
      })
      .finally(() => this.counting.delete(key));
    this.counting.set(key, counted);
    return counted;
  }

  /**
   * Runs a change of `organization`'s records (undefined: of a record of any organization); `delta`
   * says, from its result, how the totals moved (nothing for a change that moved none). A change
   * that fails may have been applied, unless `refused` says its error means it was not (a taken
   * incident number, a record not found): the totals it could have moved are forgotten.
   */
  async change<T>(
    organization: Organization | undefined,
    work: () => Promise<T>,
    delta: (result: T) => TotalsDelta | undefined,
    refused: (err: unknown) => boolean = () => false,
  ): Promise<T> {
    this.bump(organization, 1);
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (!refused(err)) this.forget(organization);
      throw err;
    } finally {
      this.bump(organization, 0);
    }
    const moved = delta(result);
    if (moved) this.move(moved);
    return result;
  }

  private move({ organization, active, deleted }: TotalsDelta): void {
    for (const org of [organization, '*'] as const) {
      const a = this.entries.get(keyOf({ organization: org, deleted: false }));
      if (a) a.total += active;
      const d = this.entries.get(keyOf({ organization: org, deleted: true }));
      if (d) d.total += deleted;
    }
  }

  private forget(organization: Organization | undefined): void {
    if (!organization) {
      this.entries.clear();
      return;
    }
    for (const org of [organization, '*'] as const) {
      this.entries.delete(keyOf({ organization: org, deleted: false }));
      this.entries.delete(keyOf({ organization: org, deleted: true }));
    }
  }

  /** A change begins (`start` 1) or ends (0): counted for its organization (or ANY) and for '*'. */
  private bump(organization: Organization | undefined, start: 0 | 1): void {
    for (const org of [organization ?? ANY, '*']) {
      if (start) this.begun.set(org, (this.begun.get(org) ?? 0) + 1);
      this.running.set(org, (this.running.get(org) ?? 0) + (start ? 1 : -1));
    }
  }

  /** Changes (begun so far, or under way) that may move a total of `org`'s lists ('*': every change). */
  private changes(of: 'begun' | 'running', org: string): number {
    const n = (key: string) => this[of].get(key) ?? 0;
    return org === '*' ? n('*') : n(org) + n(ANY);
  }
}
