import type { CaseRecord } from '@nrad/contracts';
import {
  blockingKeys,
  frequenciesFromCounts,
  type MatchResult,
  type NameFrequencies,
  type PreparedRecord,
  prepareRecord,
  priorBitsFor,
  scorePrepared,
} from '../matching/index.ts';

/** One record as the index keeps it: its latest snapshot, normalized once, and its keys. */
export interface IndexEntry {
  readonly id: string;
  readonly organization: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly record: CaseRecord;
  readonly prepared: PreparedRecord;
  readonly keys: readonly string[];
}

export interface ScoredCandidate {
  readonly entry: IndexEntry;
  readonly result: MatchResult;
}

export interface FindOptions {
  /** Only records of this organization. */
  readonly organization?: string;
  /** Never records of this organization (auto-linking: only the other agencies). */
  readonly excludeOrganization?: string;
  /** Never this record. */
  readonly excludeId?: string;
  /** Lowest confidence kept. */
  readonly threshold: number;
  /** Most results kept, best first. */
  readonly limit?: number;
  /** Filled with how many index entries were looked at (the work done). */
  readonly stats?: { examined: number };
}

/** The match fields of a record, as the scorer reads them. Amounts are decimal strings. */
export function prepareCaseRecord(
  record: Pick<CaseRecord, 'id' | 'organization' | 'suspectName' | 'suspectDob' | 'incidentDate' | 'caseAmount'>,
) {
  return prepareRecord({
    id: record.id,
    organization: record.organization,
    suspectName: record.suspectName,
    suspectDob: record.suspectDob,
    incidentDate: record.incidentDate,
    caseAmount: record.caseAmount,
  });
}

export function entryFor(record: CaseRecord): IndexEntry {
  const prepared = prepareCaseRecord(record);
  return {
    id: record.id,
    organization: record.organization,
    version: record.version,
    deleted: record.deleted,
    record,
    prepared,
    keys: blockingKeys(prepared),
  };
}

/** The active records holding one blocking key, by organization. */
type Block = Map<string, Set<string>>;

/** How many records a block holds (over its few organizations). */
function sizeOf(block: Block): number {
  let n = 0;
  for (const ids of block.values()) n += ids.size;
  return n;
}

/**
 * The match index in memory: every record the linking service has seen (deleted ones kept but
 * never offered as candidates), an inverted index from blocking key to the active records holding
 * it, and the name-word counts that make rare names count for more. Candidates come only from the
 * blocks of the query's keys, so finding them never scans the index; a key shared by more than
 * `maxBlockSize` records says little and is skipped (as in link-csv).
 *
 * The database (data/index-store.ts) is the durable copy; this is loaded from it at start and
 * written through on every change by the one consumer of `records.*`.
 */
export class MatchIndex {
  private readonly entries = new Map<string, IndexEntry>();
  private readonly blocks = new Map<string, Block>();
  private readonly wordCounts = new Map<string, number>();
  private readonly activeByOrganization = new Map<string, number>();
  private named = 0;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly maxBlockSize = 2000) {}

  get size(): number {
    return this.entries.size;
  }

  get(id: string): IndexEntry | undefined {
    return this.entries.get(id);
  }

  /** Active (not deleted) records of an organization, or of all organizations. */
  activeCount(organization?: string): number {
    if (organization) return this.activeByOrganization.get(organization) ?? 0;
    let n = 0;
    for (const c of this.activeByOrganization.values()) n += c;
    return n;
  }

  /** Puts (or replaces) an entry; a deleted one leaves the blocks and the word counts. */
  put(entry: IndexEntry): void {
    const old = this.entries.get(entry.id);
    if (old && !old.deleted) this.unlink(old);
    this.entries.set(entry.id, entry);
    if (!entry.deleted) this.link(entry);
    const waiting = this.waiters.get(entry.id);
    if (waiting) {
      this.waiters.delete(entry.id);
      for (const wake of waiting) wake();
    }
  }

  /** Resolves with the entry once it is in the index, or undefined after `ms`. */
  async waitFor(id: string, ms: number): Promise<IndexEntry | undefined> {
    const now = this.entries.get(id);
    if (now || ms <= 0) return now;
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set();
      const wake = () => {
        clearTimeout(timer);
        resolve(this.entries.get(id));
      };
      const timer = setTimeout(() => {
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(id);
        resolve(this.entries.get(id));
      }, ms);
      set.add(wake);
      this.waiters.set(id, set);
    });
  }

  /** Name-word frequencies over the active records (undefined while there are too few). */
  frequencies(): NameFrequencies | undefined {
    return frequenciesFromCounts((word) => this.wordCounts.get(word) ?? 0, this.named);
  }

  /**
   * Active records sharing a blocking key with `query`, scored, at or above the threshold, best
   * first. The prior grows with the number of records searched (priorBitsFor): the larger the
   * set, the more evidence a match needs.
   */
  find(query: PreparedRecord, keys: readonly string[], options: FindOptions): ScoredCandidate[] {
    const seen = new Set<string>();
    const results: ScoredCandidate[] = [];
    const searched = options.organization
      ? this.activeCount(options.organization)
      : this.activeCount() - (options.excludeOrganization ? this.activeCount(options.excludeOrganization) : 0);
    const scoreOptions = { frequencies: this.frequencies(), priorBits: priorBitsFor(searched) };
    for (const key of keys) {
      const block = this.blocks.get(key);
      if (!block || sizeOf(block) > this.maxBlockSize) continue;
      // Only the organizations searched: an agency's own records in a block are never walked
      // (an upload of one agency's records otherwise walked ever larger blocks of its own).
      for (const [organization, ids] of block) {
        if (options.organization && organization !== options.organization) continue;
        if (organization === options.excludeOrganization) continue;
        for (const id of ids) {
          if (seen.has(id) || id === options.excludeId) continue;
          seen.add(id);
          if (options.stats) options.stats.examined++;
          const entry = this.entries.get(id);
          if (!entry || entry.deleted) continue;
          const result = scorePrepared(query, entry.prepared, scoreOptions);
          if (!result.excluded && result.confidence >= options.threshold) results.push({ entry, result });
        }
      }
    }
    results.sort((a, b) => b.result.confidence - a.result.confidence || a.entry.id.localeCompare(b.entry.id));
    return options.limit ? results.slice(0, options.limit) : results;
  }

  private link(entry: IndexEntry): void {
    for (const key of entry.keys) {
      let block = this.blocks.get(key);
      if (!block) {
        block = new Map();
        this.blocks.set(key, block);
      }
      let ids = block.get(entry.organization);
      if (!ids) {
        ids = new Set();
        block.set(entry.organization, ids);
      }
      ids.add(entry.id);
    }
    const tokens = entry.prepared.name.tokens;
    if (tokens.length > 0) {
      this.named++;
      for (const t of tokens) this.wordCounts.set(t, (this.wordCounts.get(t) ?? 0) + 1);
    }
    this.activeByOrganization.set(entry.organization, (this.activeByOrganization.get(entry.organization) ?? 0) + 1);
  }

  private unlink(entry: IndexEntry): void {
    for (const key of entry.keys) {
      const block = this.blocks.get(key);
      const ids = block?.get(entry.organization);
      if (!block || !ids?.delete(entry.id) || ids.size > 0) continue;
      block.delete(entry.organization);
      if (block.size === 0) this.blocks.delete(key);
    }
    const tokens = entry.prepared.name.tokens;
    if (tokens.length > 0) {
      this.named--;
      for (const t of tokens) {
        const n = (this.wordCounts.get(t) ?? 0) - 1;
        if (n > 0) this.wordCounts.set(t, n);
        else this.wordCounts.delete(t);
      }
    }
    this.activeByOrganization.set(entry.organization, (this.activeByOrganization.get(entry.organization) ?? 1) - 1);
  }
}
