/**
 * The match rate of the service's own records, for the prior (issue 20: the prior from the data's
 * estimated match rate, not log2(N)). priorBitsFor(N) assumes each record has about one match
 * among the N searched; here r, the matches a record is expected to have among the active records
 * of the other organizations, is estimated from the index (matching/prior.ts: EM of the match
 * share with the field weights held fixed) and the prior becomes log2(N / r).
 *
 * The estimate runs on a fixed sample of named records (MatchIndex.sampleNamed), each with its
 * candidates among the other organizations' records through the index's own blocking walk (at most
 * MAX_MATCH_RATE_PAIRS pairs), so it stays well under a second at 100,000 records. Under
 * MIN_FREQUENCY_RECORDS named records, or with too few candidate pairs to say anything, r stays 1:
 * the prior of log2(N).
 */
import { pairWeight, priorBitsFor } from '../matching/index.ts';
import { estimatePrior } from '../matching/prior.ts';
import { MIN_FREQUENCY_RECORDS } from '../matching/weights.ts';
import type { MatchIndex } from './match-index.ts';

/** Records sampled for an estimate. */
export const MATCH_RATE_SAMPLE = 2000;
/**
 * Candidate pairs scored for an estimate at most: the sample stops at the record that reaches this.
 * A pair's weight takes some 10–20 µs, and at 100,000 records of common names a record has 150
 * or so candidates: some 60 records then, a few hundred where names say more.
 */
export const MAX_MATCH_RATE_PAIRS = 10_000;
/** Candidate pairs scored between two yields of the event loop (some 20 ms) in a background estimate. */
export const MATCH_RATE_SLICE_PAIRS = 1000;
/** Fewest candidate pairs in the sample for an estimate (else r = 1). */
export const MIN_MATCH_RATE_PAIRS = 200;
/**
 * r is kept at least this. A sample of records with no match at all says "about one match in the
 * whole sample" (the EM's floor), not how rare matches really are; this keeps the prior at most
 * log2(1 / MIN_MATCHES_PER_RECORD) ≈ 3.3 bits above log2(N), so a clean database does not make a
 * new record's true match out of reach.
 */
export const MIN_MATCHES_PER_RECORD = 0.1;
/** A re-estimate is due after changes (puts) of this share of the active records at the last one… */
export const MATCH_RATE_CHANGE_SHARE = 0.1;
/** …and at least this many changes… */
export const MIN_MATCH_RATE_CHANGES = 100;
/** …or after this long, if anything changed at all (milliseconds). */
export const MATCH_RATE_MAX_AGE_MS = 3_600_000;

/**
 * The prior (ScoreOptions.priorBits) for a search of `size` records in which a record is expected
 * to have `matchesPerRecord` matches: log2(size / r), never under PRIOR_BITS. With r = 1 exactly
 * priorBitsFor(size).
 */
export function priorBitsForRate(size: number, matchesPerRecord: number): number {
  return priorBitsFor(size / matchesPerRecord);
}

export interface MatchRateEstimate {
  /** r: the matches an active record is expected to have among the other organizations' active records. */
  readonly matchesPerRecord: number;
  /** Whether r came from the data (false: too few named records or candidate pairs, r = 1). */
  readonly estimated: boolean;
  /** The prior of a full search: a record against every active record of the other organizations (on average). */
  readonly priorBits: number;
  /** Records sampled. */
  readonly sample: number;
  /** Their candidate pairs (with records of the other organizations). */
  readonly pairs: number;
  /** Active records in the index. */
  readonly active: number;
  /** How long the estimate took (milliseconds). */
  readonly ms: number;
}

/** Estimates r from the index at once (no side effect: see MatchRate for the index's own). */
export function estimateMatchRate(index: MatchIndex, sampleSize: number = MATCH_RATE_SAMPLE): MatchRateEstimate {
  const steps = estimation(index, sampleSize);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * estimateMatchRate in slices of MATCH_RATE_SLICE_PAIRS pairs, giving the event loop back between
 * them, so requests are answered while it runs. `ms` is the time spent estimating, not waiting.
 */
export async function estimateMatchRateInSlices(
  index: MatchIndex,
  sampleSize: number = MATCH_RATE_SAMPLE,
): Promise<MatchRateEstimate> {
  const steps = estimation(index, sampleSize);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The estimate, yielding after every MATCH_RATE_SLICE_PAIRS candidate pairs. */
function* estimation(index: MatchIndex, sampleSize: number): Generator<void, MatchRateEstimate> {
  let busy = 0;
  let since = performance.now();
  const frequencies = index.frequencies();
  const sample = index.namedCount >= MIN_FREQUENCY_RECORDS ? index.sampleNamed(sampleSize) : [];
  const weights: number[] = [];
  let comparable = 0;
  let sampled = 0;
  let pause = MATCH_RATE_SLICE_PAIRS;
  for (const entry of sample) {
    if (weights.length >= MAX_MATCH_RATE_PAIRS) break;
    if (weights.length >= pause) {
      pause = weights.length + MATCH_RATE_SLICE_PAIRS;
      busy += performance.now() - since;
      yield;
      since = performance.now();
    }
    // Its record may have changed while the estimate waited: take it as it is now.
    const current = index.get(entry.id);
    if (!current || current.deleted) continue;
    sampled++;
    comparable += index.activeCount() - index.activeCount(current.organization);
    const filter = { excludeOrganization: current.organization, excludeId: current.id };
    index.forEachCandidate(current.keys, filter, (other) => {
      weights.push(pairWeight(current.prepared, other.prepared, { frequencies }));
    });
  }
  let matchesPerRecord = 1;
  const estimated = sampled > 0 && weights.length >= MIN_MATCH_RATE_PAIRS;
  if (estimated) {
    const { expectedMatches } = estimatePrior(weights, comparable);
    matchesPerRecord = Math.max(MIN_MATCHES_PER_RECORD, expectedMatches / sampled);
  }
  const active = index.activeCount();
  // A full search: a record against the active records of every other organization, on average.
  let fullSearch = 0;
  for (const organization of index.organizations()) {
    const n = index.activeCount(organization);
    if (active > 0) fullSearch += (n * (active - n)) / active;
  }
  busy += performance.now() - since;
  return {
    matchesPerRecord,
    estimated,
    priorBits: priorBitsForRate(fullSearch, matchesPerRecord),
    sample: sampled,
    pairs: weights.length,
    active,
    ms: Math.round(busy * 10) / 10,
  };
}

/**
 * The index's r: estimated at start (MatchRate.estimate), and again in the background when due
 * (MatchRate.refresh): after changes of MATCH_RATE_CHANGE_SHARE of the active records (at least
 * MIN_MATCH_RATE_CHANGES), or after MATCH_RATE_MAX_AGE_MS with any change. One at a time.
 */
export class MatchRate {
  private last: { changes: number; active: number; at: number } | undefined;
  private running = false;

  constructor(
    private readonly index: MatchIndex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Estimates r now, at once, and gives it to the index. */
  estimate(): MatchRateEstimate {
    this.mark();
    return this.adopt(estimateMatchRate(this.index));
  }

  /** Whether the index changed enough since the last estimate for another. */
  due(): boolean {
    if (!this.last) return true;
    const changed = this.index.changes - this.last.changes;
    if (changed <= 0) return false;
    if (changed >= Math.max(MIN_MATCH_RATE_CHANGES, MATCH_RATE_CHANGE_SHARE * this.last.active)) return true;
    return this.now() - this.last.at >= MATCH_RATE_MAX_AGE_MS;
  }

  /**
   * When due and none is running, re-estimates r in slices (estimateMatchRateInSlices) and gives
   * it to the index: the estimate's promise; else undefined.
   */
  refresh(): Promise<MatchRateEstimate> | undefined {
    if (this.running || !this.due()) return undefined;
    this.running = true;
    this.mark();
    return estimateMatchRateInSlices(this.index)
      .then((estimate) => this.adopt(estimate))
      .finally(() => {
        this.running = false;
      });
  }

  /** Changes from here on count towards the next estimate. */
  private mark(): void {
    this.last = { changes: this.index.changes, active: this.index.activeCount(), at: this.now() };
  }

  private adopt(estimate: MatchRateEstimate): MatchRateEstimate {
    this.index.setMatchesPerRecord(estimate.matchesPerRecord);
    return estimate;
  }
}
