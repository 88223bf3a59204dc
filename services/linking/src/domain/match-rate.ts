/**
 * The match rate of the service's own records, for the prior (issue 20: the prior from the data's
 * estimated match rate, not log2(N)), and the name and date-of-birth level weights, estimated from
 * the same records. priorBitsFor(N) assumes each record has about one match among the N searched;
 * here r, the matches a record is expected to have among the active records of the other
 * organizations, is estimated from the index (@nrad/matching, prior.ts: EM of the match share with the
 * field weights held fixed) and the prior becomes log2(N / r).
 *
 * The estimate runs on a fixed sample of named records (MatchIndex.sampleNamed), each with its
 * candidates among the other organizations' records through the index's own blocking walk (r from
 * at most MAX_MATCH_RATE_PAIRS pairs, the weights from at most MAX_WEIGHT_PAIRS). Under
 * MIN_FREQUENCY_RECORDS named records, or with too few candidate pairs to say anything, r stays 1:
 * the prior of log2(N).
 *
 * Weights: the same sample and candidate pairs go to @nrad/matching's em.ts, as link-csv's do (u from
 * 200,000 seeded random pairs, here of a sampled record against any active record; m by EM on the
 * candidate pairs whose dates of birth are the same, and on those whose names agree); r is then
 * estimated with the weights that will score. The service takes six levels from the estimate —
 * name exact, typo and conflict, date of birth exact, slip and mismatch (keyWeights) — and keeps
 * the fixed weights of the rarer ones (a phonetic, look-alike, scrambled word or an initial; a date
 * weeks off, two parts agreeing, an impossible date): a sample shows those in a few pairs, their
 * estimates swing by several bits between files alike (FEBRL 1–3: 'scrambled' +2.4 to −3.0,
 * 'initial' +1.4 to −2.4) and a level no pair shows is given log2 of the ratio of the pseudo-counts'
 * denominators (some +7.7 bits for an initial where nobody typed one), which the first initial
 * would then weigh. The six are adopted only when plausible (@nrad/matching, adoption.ts:
 * adoptableWeights and implausibility; WeightChoice's fixedBecause says which rule failed, the log
 * says it too); otherwise the fixed weights stay. Two of the rarer date-of-birth levels — weeks
 * apart, two parts agreeing — are taken from the estimate either way once its date-of-birth session
 * saw them in enough matches (issue 36, adoptableDobLevels): they say how this deployment's dates
 * go wrong (a year retyped wholesale is common in some data and all but absent in FEBRL), and a
 * pair at either level is never linked automatically, only proposed for review.
 *
 * The random pairs take some 2 s on one core (estimateMatchRate, at start, before the service
 * answers); the background re-estimate (estimateMatchRateInSlices) gives the event loop back every
 * couple of thousand of them, and after every EM iteration.
 */
import {
  adoptableDobLevels,
  adoptableWeights,
  type DataDobLevel,
  DOB_WEIGHTS,
  estimatePrior,
  finish,
  implausibility,
  type LabelledPair,
  type LevelWeights,
  MIN_FREQUENCY_RECORDS,
  MIN_SESSION_PAIRS,
  type PreparedRecord,
  pairWeight,
  priorBitsForRate,
  type ScoreOptions,
  type WeightEstimate,
  weightEstimation,
  withDobLevels,
} from '@nrad/matching';
import type { IndexEntry, MatchIndex } from './match-index.ts';
import type { WeightsOffload } from './weights-thread.ts';

/** Records sampled for an estimate. */
export const MATCH_RATE_SAMPLE = 2000;
/**
 * Candidate pairs scored for r at most: r's part of the sample stops at the record that reaches
 * this. A pair's weight takes some 10–20 µs, and at 100,000 records of common names a record has 150
 * or so candidates: some 60 records then, a few hundred where names say more.
 */
export const MAX_MATCH_RATE_PAIRS = 10_000;
/**
 * Candidate pairs of the sample the weights are estimated from at most (the first
 * MAX_MATCH_RATE_PAIRS of them are r's): the walk goes on to the record that reaches this. EM needs
 * matches more than pairs: at 100,000 records of the benchmark's common names, a fifth of them
 * with a match in another agency, 10,000 pairs are some 60 records and the sessions found 25 and
 * 34 matches; 50,000 pairs are some 280 records, 109 and 170 matches. Comparing a pair for EM
 * takes some 10 µs (no weight, no explanation): 0.5 s more.
 */
export const MAX_WEIGHT_PAIRS = 50_000;
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
 * How long the record events must pause before the re-estimate a short run asks for begins (ms):
 * an upload's events come in bursts (one import request's records at a time) that linking may
 * drain before the next arrives, and a run cut short between two bursts re-estimated each time
 * (bench:ingest, 100,000 rows with record events fetched 1,000 at a time: 16 estimates of 3.5–5 s
 * during the upload, its links 61 -> 78 s). A run that arrives meanwhile puts it off again; the
 * pairs across agencies growing fourfold (MatchRate.grown) still re-estimate at once.
 */
export const MATCH_RATE_QUIET_MS = 2000;

/** Runs the callback last armed once `ms` pass without another `arm` or a `cancel`. */
export class QuietTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number) {}

  arm(fn: () => void): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      fn();
    }, this.ms);
    this.timer.unref();
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * The pairs across organizations from which MatchRate.grown counts: those of MIN_MATCH_RATE_CHANGES
 * records in two organizations, half each.
 */
export const MIN_CROSS_PAIRS = (MIN_MATCH_RATE_CHANGES / 2) ** 2;

/** Pairs of active records of two different organizations: Σ nᵢ·nⱼ over pairs of organizations. */
export function crossPairs(index: MatchIndex): number {
  let all = 0;
  let same = 0;
  for (const organization of index.organizations()) {
    const n = index.activeCount(organization);
    all += n;
    same += n * n;
  }
  return (all * all - same) / 2;
}

/** The level weights an estimate chose, and why. */
export interface WeightChoice {
  /**
   * The weights to score with: the six key levels estimated by EM when plausible, and the
   * date-of-birth levels of dobLevels over them or over the fixed weights; undefined: the fixed
   * weights alone.
   */
  readonly adopted: LevelWeights | undefined;
  /** What EM estimated, adopted or not (undefined: not tried, or estimateWeights gave nothing). */
  readonly estimate: WeightEstimate | undefined;
  /** Why the fixed key weights stay (undefined when the estimated ones are adopted). */
  readonly fixedBecause: string | undefined;
  /** The date-of-birth levels taken from the estimate whatever fixedBecause says (adoptableDobLevels). */
  readonly dobLevels: Partial<Record<DataDobLevel, number>>;
  /** Records sampled for the weights, and their candidate pairs (MAX_WEIGHT_PAIRS). */
  readonly records: number;
  readonly pairs: number;
  /** How long estimating the weights took (milliseconds; part of the estimate's `ms`). */
  readonly ms: number;
}

export interface MatchRateEstimate {
  /** r: the matches an active record is expected to have among the other organizations' active records. */
  readonly matchesPerRecord: number;
  /** Whether r came from the data (false: too few named records or candidate pairs, r = 1). */
  readonly estimated: boolean;
  /** The prior of a full search: a record against every active record of the other organizations (on average). */
  readonly priorBits: number;
  /** The level weights to score with (r was estimated with them). */
  readonly weights: WeightChoice;
  /** Records sampled for r. */
  readonly sample: number;
  /** Their candidate pairs (with records of the other organizations). */
  readonly pairs: number;
  /** Active records in the index. */
  readonly active: number;
  /** How long the estimate took (milliseconds). */
  readonly ms: number;
}

/** Time spent working on an estimate: its slices, not the waits between them. */
class WorkClock {
  private spent = 0;
  private since: number | undefined;

  start(): void {
    this.since = performance.now();
  }

  stop(): void {
    if (this.since !== undefined) this.spent += performance.now() - this.since;
    this.since = undefined;
  }

  /** Milliseconds worked so far, the slice under way included. */
  get ms(): number {
    return this.spent + (this.since === undefined ? 0 : performance.now() - this.since);
  }
}

const tenths = (ms: number) => Math.round(ms * 10) / 10;

/** Estimates r and the weights from the index at once (no side effect: see MatchRate for the index's own). */
export function estimateMatchRate(
  index: MatchIndex,
  sampleSize: number = MATCH_RATE_SAMPLE,
  labels: readonly LabelledPair[] = [],
): MatchRateEstimate {
  const clock = new WorkClock();
  clock.start();
  return finish(estimation(index, sampleSize, clock, labels));
}

/**
 * estimateMatchRate in slices (MATCH_RATE_SLICE_PAIRS pairs scored, em.ts's ESTIMATE_STEP pairs
 * compared, one EM iteration), giving the event loop back between them, so requests are answered
 * while it runs. `ms` is the time spent estimating, not waiting.
 */
export async function estimateMatchRateInSlices(
  index: MatchIndex,
  sampleSize: number = MATCH_RATE_SAMPLE,
  labels: readonly LabelledPair[] = [],
  offload?: OffloadWeights,
): Promise<MatchRateEstimate> {
  const clock = new WorkClock();
  const steps = estimation(index, sampleSize, clock, labels, offload);
  for (;;) {
    clock.start();
    const step = steps.next();
    if (step.done) {
      clock.stop();
      return step.value;
    }
    // A step handed to the weights thread: its time counts as the estimate's, as its slices did.
    if (step.value) await step.value;
    clock.stop();
    if (!step.value) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Where the weights are estimated when not in the event loop's slices (weights-thread.ts), and
 * what to do when it fails (the weights are then estimated in slices, as without it).
 */
export interface OffloadWeights {
  readonly run: WeightsOffload;
  readonly failed: (err: unknown) => void;
}

/** A step of an estimate: a slice done (undefined), or work handed to the weights thread. */
type Step = void | Promise<void>;

/** The estimate: the sample's walk, the weights, then r with them (yielding between slices). */
function* estimation(
  index: MatchIndex,
  sampleSize: number,
  clock: WorkClock,
  labels: readonly LabelledPair[],
  offload?: OffloadWeights,
): Generator<Step, MatchRateEstimate> {
  const frequencies = index.frequencies();
  const sample = walkSample(index, sampleSize);
  const weights = yield* chooseWeights(index, sample, clock, labels, offload);
  const pairWeights = yield* weighPairs(sample, {
    frequencies,
    weights: weights.adopted,
    strictNames: index.strictNames,
  });
  const sampled = sample.rate.records;
  let matchesPerRecord = 1;
  const estimated = sampled > 0 && pairWeights.length >= MIN_MATCH_RATE_PAIRS;
  if (estimated) {
    const { expectedMatches } = estimatePrior(pairWeights, sample.rate.comparable);
    matchesPerRecord = Math.max(MIN_MATCHES_PER_RECORD, expectedMatches / sampled);
  }
  const active = index.activeCount();
  // A full search: a record against the active records of every other organization, on average.
  let fullSearch = 0;
  for (const organization of index.organizations()) {
    const n = index.activeCount(organization);
    if (active > 0) fullSearch += (n * (active - n)) / active;
  }
  return {
    matchesPerRecord,
    estimated,
    priorBits: priorBitsForRate(fullSearch, matchesPerRecord, estimated),
    weights,
    sample: sampled,
    pairs: pairWeights.length,
    active,
    ms: tenths(clock.ms),
  };
}

/** The sample and its candidate pairs, as em.ts and estimatePrior take them. */
interface Sample {
  /** Named active records of the index when the sample was walked. */
  readonly named: number;
  /** The sampled records (active, named). */
  readonly left: readonly PreparedRecord[];
  /** Their candidates, each once. */
  readonly candidates: readonly IndexEntry[];
  /** Candidate pairs: [place in left, place in candidates]. */
  readonly pairs: ReadonlyArray<readonly [number, number]>;
  /**
   * The part r is estimated from: the first `records` of left, up to the one that reached
   * MAX_MATCH_RATE_PAIRS, their `pairs` first pairs, and the pairs they could be compared in at
   * all (`comparable`: each with the other organizations' active records).
   */
  readonly rate: { readonly records: number; readonly pairs: number; readonly comparable: number };
}

/**
 * The sample with its candidates among the other organizations' records (at most
 * MAX_WEIGHT_PAIRS pairs: the sample stops at the record that reaches it). Unscored, the walk
 * takes a few milliseconds, so it runs at once: the index as it is at one moment.
 */
function walkSample(index: MatchIndex, sampleSize: number): Sample {
  const named = index.namedCount;
  const entries = named >= MIN_FREQUENCY_RECORDS ? index.sampleNamed(sampleSize) : [];
  const left: PreparedRecord[] = [];
  const candidates: IndexEntry[] = [];
  const placeOf = new Map<IndexEntry, number>();
  const pairs: Array<readonly [number, number]> = [];
  const rate = { records: 0, pairs: 0, comparable: 0 };
  for (const entry of entries) {
    if (pairs.length >= MAX_WEIGHT_PAIRS) break;
    const forRate = pairs.length < MAX_MATCH_RATE_PAIRS;
    const i = left.push(entry.prepared) - 1;
    const filter = { excludeOrganization: entry.organization, excludeId: entry.id };
    index.forEachCandidate(entry.keys, filter, (other) => {
      let j = placeOf.get(other);
      if (j === undefined) {
        j = candidates.push(other) - 1;
        placeOf.set(other, j);
      }
      pairs.push([i, j]);
    });
    if (!forRate) continue;
    rate.records++;
    rate.pairs = pairs.length;
    rate.comparable += index.activeCount() - index.activeCount(entry.organization);
  }
  return { named, left, candidates, pairs, rate };
}

/**
 * The sample's candidates, then every other active record: a sampled record against a record drawn
 * from these is a random pair of the index (em.ts's u), and the candidate pairs keep their places.
 */
function population(index: MatchIndex, candidates: readonly IndexEntry[]): PreparedRecord[] {
  const placed = new Set(candidates);
  const records = candidates.map((entry) => entry.prepared);
  index.forEachActive((entry) => {
    if (!placed.has(entry)) records.push(entry.prepared);
  });
  return records;
}

/**
 * EM's estimate from the sample against `right`: in the weights thread when there is one (the
 * same function on the same records, so the same estimate), else — or when the thread fails — in
 * the event loop's slices.
 */
function* estimateWeights(
  sample: Sample,
  right: readonly PreparedRecord[],
  labels: readonly LabelledPair[],
  offload: OffloadWeights | undefined,
): Generator<Step, WeightEstimate | undefined> {
  if (offload) {
    let outcome: { estimate: WeightEstimate | undefined } | undefined;
    yield offload.run({ left: sample.left, pairs: sample.pairs, right, labels }).then(
      (estimate) => {
        outcome = { estimate };
      },
      (err: unknown) => offload.failed(err),
    );
    if (outcome) return outcome.estimate;
  }
  return yield* weightEstimation(sample.left, sample.pairs, right, { labels });
}

/** The weights to score with: estimated from the sample by EM, adopted when plausible (see the header). */
function* chooseWeights(
  index: MatchIndex,
  sample: Sample,
  clock: WorkClock,
  labels: readonly LabelledPair[],
  offload?: OffloadWeights,
): Generator<Step, WeightChoice> {
  const started = clock.ms;
  const walked = { records: sample.left.length, pairs: sample.pairs.length };
  const fixed = (fixedBecause: string, estimate?: WeightEstimate): WeightChoice => ({
    adopted: undefined,
    estimate,
    fixedBecause,
    dobLevels: {},
    ...walked,
    ms: tenths(clock.ms - started),
  });
  if (sample.named < MIN_FREQUENCY_RECORDS) return fixed(`fewer than ${MIN_FREQUENCY_RECORDS} named records`);
  if (sample.pairs.length < MIN_SESSION_PAIRS) return fixed(`${sample.pairs.length} candidate pairs`);
  // The population as the walk left the index (no yield since), then a yield: some 60 ms at 100,000.
  const right = population(index, sample.candidates);
  yield;
  const estimate = yield* estimateWeights(sample, right, labels, offload);
  if (!estimate) {
    return fixed(`an EM session under ${MIN_SESSION_PAIRS} pairs, or agreement weighing no more than disagreement`);
  }
  const weights = adoptableWeights(estimate.weights);
  const implausible = implausibility(estimate, weights);
  const keys = implausible ? undefined : weights;
  const dobLevels = adoptableDobLevels(estimate, keys?.dob ?? DOB_WEIGHTS);
  return {
    adopted: withDobLevels(keys, dobLevels),
    estimate,
    fixedBecause: implausible,
    dobLevels,
    ...walked,
    ms: tenths(clock.ms - started),
  };
}

/** The total weight of each of r's pairs as it will be scored, yielding every MATCH_RATE_SLICE_PAIRS. */
function* weighPairs(sample: Sample, options: ScoreOptions): Generator<Step, Float64Array> {
  const weights = new Float64Array(sample.rate.pairs);
  for (const [k, [i, j]] of sample.pairs.slice(0, sample.rate.pairs).entries()) {
    if (k > 0 && k % MATCH_RATE_SLICE_PAIRS === 0) yield;
    weights[k] = pairWeight(sample.left[i]!, (sample.candidates[j] as IndexEntry).prepared, options);
  }
  return weights;
}

/**
 * The index's r and level weights: estimated at start (MatchRate.estimate), and again in the background when due
 * (MatchRate.refresh): after changes of MATCH_RATE_CHANGE_SHARE of the active records (at least
 * MIN_MATCH_RATE_CHANGES), or after MATCH_RATE_MAX_AGE_MS with any change. One at a time.
 */
export class MatchRate {
  private last: { changes: number; active: number; crossPairs: number; at: number } | undefined;
  private running = false;

  /**
   * `labels`: the pairs people decided (issue 36: confirmed and rejected possible matches, rejected
   * links), read at each estimate; EM takes their truth as given (em.ts).
   */
  constructor(
    private readonly index: MatchIndex,
    private readonly now: () => number = Date.now,
    private readonly labels: () => readonly LabelledPair[] = () => [],
    /** Where background estimates take their weights from (none: the event loop's slices). */
    private readonly offload?: OffloadWeights,
  ) {}

  /** Estimates r and the weights now, at once, and gives them to the index. */
  estimate(): MatchRateEstimate {
    this.mark();
    return this.adopt(estimateMatchRate(this.index, MATCH_RATE_SAMPLE, this.labels()));
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
   * Whether what an estimate learns from has grown enough since the last one for another, even
   * behind a backlog: the pairs of active records of two organizations (crossPairs) at least four
   * times as many — each organization's records doubled — counting from MIN_CROSS_PAIRS. A
   * deployment filled by uploads from empty otherwise scored every record of them with the empty
   * index's r (1 match a record, the prior of log2 N): on a set with 1% of records a duplicate
   * that let namesakes link (issue 36, `npm run linkage:service -- --set duplicates1`). Counted in
   * records (session 8), it asked for estimates while one agency's upload alone had arrived —
   * nothing to learn across agencies, so r stayed 1 — and none again until the index doubled:
   * the next agency's records were all scored with r = 1, and namesakes still linked in two runs
   * of five. Counted in pairs across agencies, a load asks for about log2(N / 100) estimates as
   * before, at the moments they can learn something, so the backlog hardly pays; what the early,
   * more cautious estimates miss, linking again after r rose finds (relinking.ts: rateRose).
   */
  grown(): boolean {
    if (!this.last) return true;
    return crossPairs(this.index) >= 4 * Math.max(this.last.crossPairs, MIN_CROSS_PAIRS);
  }

  /**
   * When due and none is running, re-estimates r and the weights in slices
   * (estimateMatchRateInSlices) and gives them to the index: the estimate's promise; else undefined.
   */
  refresh(): Promise<MatchRateEstimate> | undefined {
    if (this.running || !this.due()) return undefined;
    this.running = true;
    this.mark();
    return estimateMatchRateInSlices(this.index, MATCH_RATE_SAMPLE, this.labels(), this.offload)
      .then((estimate) => this.adopt(estimate))
      .finally(() => {
        this.running = false;
      });
  }

  /** Changes from here on count towards the next estimate. */
  private mark(): void {
    const { index } = this;
    this.last = { changes: index.changes, active: index.activeCount(), crossPairs: crossPairs(index), at: this.now() };
  }

  private adopt(estimate: MatchRateEstimate): MatchRateEstimate {
    this.index.setMatchesPerRecord(estimate.matchesPerRecord, estimate.estimated);
    this.index.setWeights(estimate.weights.adopted);
    return estimate;
  }
}
