import type { CaseRecord, PossibleMatchRecord } from '@nrad/contracts';
import {
  blockingKeys,
  frequenciesFromCounts,
  isNameKey,
  type LevelWeights,
  MAX_BLOCK_SIZE,
  MAX_NAME_BLOCK_SIZE,
  type MatchResult,
  type NameFrequencies,
  type PreparedRecord,
  prepareRecord,
  priorBitsForRate,
  type ReviewCeilings,
  type ScoreOptions,
  scorePrepared,
} from '@nrad/matching';

/**
 * One record as the index keeps it: its version, SPEC §2's match-panel fields (a NAMLC check's
 * matches, the possible matches) and its match fields normalized once. The whole snapshot (a links
 * view's `linkedRecord`) is read from the store when asked (LinkingStore.snapshots), and the blocking
 * keys are made again when asked (when the record is put, replaced or searched for): kept for every
 * record they were about 0.4 and 0.7 KB a record (issue 36, memory per record).
 */
export class IndexEntry {
  readonly id: string;
  readonly organization: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly panel: PossibleMatchRecord;
  readonly prepared: PreparedRecord;
  /**
   * The keys while they are held (holdKeys): undefined when not held, null when held but not made
   * yet. One field, so that an entry not held costs no more than one empty slot.
   */
  private held: readonly string[] | null | undefined = undefined;

  constructor(record: CaseRecord) {
    this.id = record.id;
    this.organization = record.organization;
    this.version = record.version;
    this.deleted = record.deleted;
    this.panel = {
      id: record.id,
      incidentNumber: record.incidentNumber,
      suspectName: record.suspectName,
      suspectDob: record.suspectDob,
      incidentDate: record.incidentDate,
      caseAmount: record.caseAmount,
      organization: record.organization,
    };
    this.prepared = prepareCaseRecord(record);
  }

  /** The record's blocking keys. */
  get keys(): readonly string[] {
    if (this.held) return this.held;
    const keys = blockingKeys(this.prepared);
    if (this.held === null) this.held = keys;
    return keys;
  }

  /**
   * Keeps the keys once made, until releaseKeys: a record event's new entry asks for them three
   * times in a row (stored, put in the index, its candidates found), and making them was a tenth
   * of the service's time while it linked an upload.
   */
  holdKeys(): void {
    if (this.held === undefined) this.held = null;
  }

  /** Makes the keys again whenever asked (the default: kept for every record they cost memory). */
  releaseKeys(): void {
    this.held = undefined;
  }
}

export interface ScoredCandidate {
  readonly entry: IndexEntry;
  readonly result: MatchResult;
}

/** Which records a candidate walk (MatchIndex.forEachCandidate) may meet. */
export interface CandidateFilter {
  /** Only records of this organization. */
  readonly organization?: string;
  /** Never records of this organization (auto-linking: only the other agencies). */
  readonly excludeOrganization?: string;
  /** Never this record. */
  readonly excludeId?: string;
  /** Filled with how many index entries were looked at (the work done). */
  readonly stats?: { examined: number };
}

export interface FindOptions extends CandidateFilter {
  /** Lowest confidence kept. */
  readonly threshold: number;
  /** Most results kept, best first. */
  readonly limit?: number;
  /**
   * Two records of the service's (auto-linking): the uncertain classes are scored into the review
   * band (MatchIndex.review). A NAMLC check's query is not: a surname alone or half a name discloses
   * nothing there (issue 34).
   */
  readonly review?: boolean;
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
  return new IndexEntry(record);
}

/**
 * A blocking key as the blocks hold it: 30 bits of its FNV-1a hash (a small integer, so a block map
 * keeps no key strings: with the keys strings they were most of the index's memory). Two keys of
 * one hash share a block: a few more candidates, scored like any other (about a thousand of the
 * 1.3 million keys of 100,000 records).
 */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x3fffffff;
}

/**
 * The active records of one organization holding one blocking key, as slots (see MatchIndex):
 * most keys are held by one record, so one number until there are more, then an array.
 */
type Holders = number | number[];

const holdersSize = (h: Holders) => (typeof h === 'number' ? 1 : h.length);

/** Where sampleNamed starts (any fixed number: the sample is the same at every start). */
const SAMPLE_SEED = 7919;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The match index in memory: every record the linking service has seen (deleted ones kept but
 * never offered as candidates), an inverted index from blocking key to the active records holding
 * it, and the name-word counts that make rare names count for more. Candidates come only from the
 * blocks of the query's keys, so finding them never scans the index; a key shared by more than
 * `maxBlockSize` records says little and is skipped (as in link-csv).
 *
 * Each record has a slot (a number, its place in `slots`), and blocks hold slots, one map of
 * blocks per organization: a record's fourteen or so keys are mostly its own, and a map of
 * numbers per key costs a fraction of a map of sets of ids (an upload of 100,000 records put
 * 1.4 million keys; as sets of ids that was most of the service's time and memory). Searching only
 * other agencies never walks an agency's own blocks.
 *
 * The database (data/store.ts) is the durable copy; this is loaded from it at start and
 * written through on every change by the one consumer of `records.*`.
 */
export class MatchIndex {
  private readonly slotOf = new Map<string, number>();
  private readonly slots: IndexEntry[] = [];
  /** Organization → its blocks: blocking key → the slots of its active records holding it. */
  private readonly blocksOf = new Map<string, Map<number, Holders>>();
  private readonly wordCounts = new Map<string, number>();
  private readonly activeByOrganization = new Map<string, number>();
  private named = 0;
  /** Puts so far (see changes). */
  private puts = 0;
  /** r: the matches a record is expected to have in a search (see priorBits). */
  private rate = 1;
  /** Whether r came from the data (match-rate.ts) rather than assumed. */
  private rateEstimated = false;
  /** Level weights estimated from the records (see weights), or undefined: the fixed weights. */
  private levelWeights: LevelWeights | undefined;
  /** The uncertain classes' confidences in force (review-classes.ts), or undefined: no review band. */
  private reviewCeilings: ReviewCeilings | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();
  /** find's "already looked at" marks: seenAt[slot] === visit (no set per search). */
  private seenAt = new Uint32Array(1024);
  private visit = 0;

  private readonly maxBlockSize: number;
  private readonly maxNameBlockSize: number;
  /** ScoreOptions.strictNames for every pair the service scores (LINK_STRICT_NAMES). */
  readonly strictNames: boolean;

  constructor(options: { maxBlockSize?: number; maxNameBlockSize?: number; strictNames?: boolean } = {}) {
    this.maxBlockSize = options.maxBlockSize ?? MAX_BLOCK_SIZE;
    this.maxNameBlockSize = options.maxNameBlockSize ?? MAX_NAME_BLOCK_SIZE;
    this.strictNames = options.strictNames ?? false;
  }

  get size(): number {
    return this.slots.length;
  }

  get(id: string): IndexEntry | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.slots[slot];
  }

  /**
   * The entry of a slot (0 to size − 1: records in the order they first came; a later version
   * keeps its record's slot), deleted or not; undefined past the end.
   */
  entryAt(slot: number): IndexEntry | undefined {
    return this.slots[slot];
  }

  /** Active records with a name (not a placeholder): those the name-word counts are over. */
  get namedCount(): number {
    return this.named;
  }

  /** Entries put since the index was made (new records, new versions, deletions): a clock of change. */
  get changes(): number {
    return this.puts;
  }

  /**
   * r, the matches a record is expected to have among the records a search walks (1 until set
   * from the data: see match-rate.ts).
   */
  get matchesPerRecord(): number {
    return this.rate;
  }

  /** Sets r; `estimated`: from the data (see priorBitsForRate), else assumed. */
  setMatchesPerRecord(rate: number, estimated = false): void {
    if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`matches per record must be positive: ${rate}`);
    this.rate = rate;
    this.rateEstimated = estimated;
  }

  /** The prior (ScoreOptions.priorBits) for a search of `searched` records: priorBitsForRate with r. */
  priorBits(searched: number): number {
    return priorBitsForRate(searched, this.rate, this.rateEstimated);
  }

  /**
   * The name and date-of-birth level weights the index scores with: estimated from its records
   * when they were plausible (match-rate.ts), else undefined, the fixed weights.
   */
  get weights(): LevelWeights | undefined {
    return this.levelWeights;
  }

  setWeights(weights: LevelWeights | undefined): void {
    this.levelWeights = weights;
  }

  /** The uncertain classes' confidences (ScoreOptions.review) for pairs of two records. */
  get review(): ReviewCeilings | undefined {
    return this.reviewCeilings;
  }

  setReview(ceilings: ReviewCeilings | undefined): void {
    this.reviewCeilings = ceilings;
  }

  /**
   * How a pair is scored in a search of `searched` records, wherever the service scores one:
   * name-word frequencies, the prior of r (priorBits), the level weights in use and strictNames;
   * the names agreeing on whole words (ScoreOptions.wholeNames), always: what the service scores
   * decides what another agency is shown. With `review`, two records' pair: the uncertain classes
   * in the review band (ScoreOptions.review: a partial name or one word against another is shown
   * at most at its class's confidence, and goes to review).
   */
  scoreOptions(searched: number, review = false): ScoreOptions {
    return {
      frequencies: this.frequencies(),
      priorBits: this.priorBits(searched),
      weights: this.levelWeights,
      strictNames: this.strictNames,
      wholeNames: true,
      ...(review && this.reviewCeilings ? { review: this.reviewCeilings } : {}),
    };
  }

  /** The organizations that have had records here (some perhaps all deleted since). */
  organizations(): string[] {
    return [...this.activeByOrganization.keys()];
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
    this.puts++;
    let slot = this.slotOf.get(entry.id);
    if (slot === undefined) {
      slot = this.slots.length;
      this.slots.push(entry);
      this.slotOf.set(entry.id, slot);
    } else {
      const old = this.slots[slot] as IndexEntry;
      if (!old.deleted) this.unlink(old, slot);
      this.slots[slot] = entry;
    }
    if (!entry.deleted) this.link(entry, slot);
    const waiting = this.waiters.get(entry.id);
    if (waiting) {
      this.waiters.delete(entry.id);
      for (const wake of waiting) wake();
    }
  }

  /** Resolves with the entry once it is in the index, or undefined after `ms`. */
  async waitFor(id: string, ms: number): Promise<IndexEntry | undefined> {
    const now = this.get(id);
    if (now || ms <= 0) return now;
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set();
      const wake = () => {
        clearTimeout(timer);
        resolve(this.get(id));
      };
      const timer = setTimeout(() => {
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(id);
        resolve(this.get(id));
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
   * first. The prior grows with the number of records searched, over the matches a record is
   * expected to have there (priorBits): the larger the set, the more evidence a match needs. Scored
   * with the index's weights (scoreOptions).
   */
  find(query: PreparedRecord, keys: readonly string[], options: FindOptions): ScoredCandidate[] {
    const results: ScoredCandidate[] = [];
    const searched = options.organization
      ? this.activeCount(options.organization)
      : this.activeCount() - (options.excludeOrganization ? this.activeCount(options.excludeOrganization) : 0);
    const scoreOptions = this.scoreOptions(searched, options.review === true);
    this.forEachCandidate(keys, options, (entry) => {
      const result = scorePrepared(query, entry.prepared, scoreOptions);
      if (!result.excluded && result.confidence >= options.threshold) results.push({ entry, result });
    });
    results.sort((a, b) => b.result.confidence - a.result.confidence || a.entry.id.localeCompare(b.entry.id));
    return options.limit ? results.slice(0, options.limit) : results;
  }

  /**
   * Calls `visit` once for each active record of the searched organizations holding one of `keys`
   * (find's candidates, unscored). A key held by more than `maxBlockSize` records is skipped.
   */
  forEachCandidate(keys: readonly string[], filter: CandidateFilter, visit: (entry: IndexEntry) => void): void {
    // Every organization's blocks count towards a block's size; only the searched ones are walked
    // (an upload of one agency's records otherwise walked ever larger blocks of its own).
    const organizations = [...this.blocksOf].map(([organization, blocks]) => ({
      blocks,
      walked:
        (!filter.organization || organization === filter.organization) && organization !== filter.excludeOrganization,
    }));
    const found: Holders[] = [];
    const excluded = filter.excludeId === undefined ? undefined : this.slotOf.get(filter.excludeId);
    const visitMark = this.nextVisit();
    const seenAt = this.seenAt;
    const stats = filter.stats;
    const consider = (slot: number) => {
      if (seenAt[slot] === visitMark || slot === excluded) return;
      seenAt[slot] = visitMark;
      if (stats) stats.examined++;
      const entry = this.slots[slot] as IndexEntry;
      if (!entry.deleted) visit(entry);
    };
    for (const key of keys) {
      let size = 0;
      found.length = 0;
      const hash = keyHash(key);
      for (const { blocks, walked } of organizations) {
        const holders = blocks.get(hash);
        if (holders === undefined) continue;
        size += holdersSize(holders);
        if (walked) found.push(holders);
      }
      if (size > (isNameKey(key) ? this.maxNameBlockSize : this.maxBlockSize)) continue;
      for (const holders of found) {
        if (typeof holders === 'number') consider(holders);
        else for (const slot of holders) consider(slot);
      }
    }
  }

  /** Calls `visit` for every active record, in slot order. */
  forEachActive(visit: (entry: IndexEntry) => void): void {
    for (const entry of this.slots) if (!entry.deleted) visit(entry);
  }

  /**
   * Up to `size` active records with a name, the same ones for the same index: the slots are
   * stepped through from a fixed start by a step near the golden section of their number (coprime
   * to it, so every slot comes once), which spreads the sample over the whole load order.
   */
  sampleNamed(size: number): IndexEntry[] {
    const n = this.slots.length;
    const sample: IndexEntry[] = [];
    if (n === 0 || size <= 0) return sample;
    let step = Math.max(1, Math.round(n * 0.6180339887));
    while (gcd(step, n) !== 1) step++;
    let slot = SAMPLE_SEED % n;
    for (let i = 0; i < n && sample.length < size; i++) {
      const entry = this.slots[slot] as IndexEntry;
      if (!entry.deleted && entry.prepared.name.tokens.length > 0) sample.push(entry);
      slot = (slot + step) % n;
    }
    return sample;
  }

  /** A new mark for `seenAt`, every slot unmarked (the array grown to the slots). */
  private nextVisit(): number {
    if (this.seenAt.length < this.slots.length) {
      this.seenAt = new Uint32Array(Math.max(this.slots.length, this.seenAt.length * 2));
      this.visit = 0;
    }
    if (this.visit === 0xffffffff) {
      this.seenAt.fill(0);
      this.visit = 0;
    }
    return ++this.visit;
  }

  private blocksFor(organization: string): Map<number, Holders> {
    let blocks = this.blocksOf.get(organization);
    if (!blocks) {
      blocks = new Map();
      this.blocksOf.set(organization, blocks);
    }
    return blocks;
  }

  private link(entry: IndexEntry, slot: number): void {
    const blocks = this.blocksFor(entry.organization);
    for (const key of entry.keys) {
      const hash = keyHash(key);
      const holders = blocks.get(hash);
      if (holders === undefined) blocks.set(hash, slot);
      else if (typeof holders === 'number') {
        if (holders !== slot) blocks.set(hash, [holders, slot]);
      } else if (holders[holders.length - 1] !== slot) holders.push(slot);
    }
    const tokens = entry.prepared.name.tokens;
    if (tokens.length > 0) {
      this.named++;
      for (const t of tokens) this.wordCounts.set(t, (this.wordCounts.get(t) ?? 0) + 1);
    }
    this.activeByOrganization.set(entry.organization, (this.activeByOrganization.get(entry.organization) ?? 0) + 1);
  }

  private unlink(entry: IndexEntry, slot: number): void {
    const blocks = this.blocksFor(entry.organization);
    for (const key of entry.keys) {
      const hash = keyHash(key);
      const holders = blocks.get(hash);
      if (holders === undefined) continue;
      if (typeof holders === 'number') {
        if (holders === slot) blocks.delete(hash);
        continue;
      }
      const at = holders.lastIndexOf(slot);
      if (at < 0) continue;
      const last = holders.pop() as number;
      if (at < holders.length) holders[at] = last;
      if (holders.length === 1) blocks.set(hash, holders[0] as number);
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
