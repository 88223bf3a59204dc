/**
 * Linking again after the model changed (issue 36, ADR 0022 session 9). A pair is scored once,
 * when the later of its records arrives, with the weights of that moment; an estimate adopted
 * later (match-rate.ts) may score it otherwise. A deployment filled by uploads shows it most:
 * the agencies' files reach the linking service one after another, so the first two agencies'
 * pairs were all scored before any estimate could see a pair across agencies, with the fixed
 * weights. When an estimate changes the weights materially (modelChanged), or r rose (rateRose:
 * early in a load r is estimated low, before most duplicates have arrived, and the prior high), the
 * records that came before it go through auto-linking again: what the new model links or proposes
 * is added — never taken away (a link stands until a person rejects it; `npm run links:audit` lists
 * those the rules would not make today) — and pairs with a link or a possible match already,
 * decided or not, are left as they are.
 *
 * The pass runs in slices between which requests and record events go on, and waits while runs of
 * record events come full (a backlog: keeping up comes first).
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { calibrationFor, DOB_WEIGHTS, type LevelWeights, NAME_WEIGHTS } from '@nrad/matching';
import type { IndexEntry, MatchIndex } from './match-index.ts';

/**
 * How far a level's weight must move (bits) for the records before it to be linked again: about a
 * third of the evidence between the review band's edges (50 and 80% are 2 bits apart), far more
 * than the re-estimates of a deployment in use move (a few hundredths to a tenth of a bit).
 */
export const RELINK_SHIFT_BITS = 0.5;
/** Synchronous work of a pass before the event loop gets a turn (ms). */
export const RELINK_SLICE_MS = 10;
/** How long a pass waits after a full run of record events began (ms): the backlog first. */
export const RELINK_BACKLOG_PAUSE_MS = 500;

const FIXED: LevelWeights = { name: NAME_WEIGHTS, dob: DOB_WEIGHTS };

/**
 * Whether pairs scored with `before` may score materially otherwise with `after` (undefined: the
 * fixed weights): a level weight moved by RELINK_SHIFT_BITS or more, or the calibration changed.
 */
export function modelChanged(before: LevelWeights | undefined, after: LevelWeights | undefined): boolean {
  const [x, y] = [calibrationFor(before), calibrationFor(after)];
  if (x.slope !== y.slope || x.offset !== y.offset) return true;
  const a = before ?? FIXED;
  const b = after ?? FIXED;
  const moved = (p: Readonly<Record<string, number>>, q: Readonly<Record<string, number>>) =>
    Object.keys(p).some((level) => Math.abs((p[level] as number) - (q[level] as number)) >= RELINK_SHIFT_BITS);
  return moved(a.name, b.name) || moved(a.dob, b.dob);
}

/**
 * Whether r, the matches a record is expected to have elsewhere (match-rate.ts), rose enough for
 * the records scored before to be linked again: the prior of a search (log2(N / r)) fell by
 * RELINK_SHIFT_BITS or more. A fall of r asks more evidence of new pairs, and a pass takes nothing
 * away, so only a rise counts.
 */
export function rateRose(before: number, after: number): boolean {
  return after >= before * 2 ** RELINK_SHIFT_BITS;
}

/** What a pass made: the records linked again, and the links and possible matches that added. */
export interface RelinkTally {
  records: number;
  links: number;
  possibleMatches: number;
}

/**
 * Runs passes of auto-linking over the records that came before a change of the model (request),
 * one at a time: a request during a pass starts it again from the first record (they were all
 * scored with a model older than the latest).
 */
export class Relinking {
  private next = 0;
  private upTo = 0;
  private pausedUntil = 0;
  private pass: Promise<void> | undefined;

  /**
   * `link`: auto-linking of one record (what it made); `done`: called after each pass with its
   * tally (the log).
   */
  constructor(
    private readonly index: MatchIndex,
    private readonly link: (entry: IndexEntry) => Promise<{ links: number; possibleMatches: number }>,
    private readonly done: (tally: RelinkTally) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Links again the records of the index's first `records` slots (those before the change). */
  request(records: number): void {
    this.next = 0;
    this.upTo = Math.min(records, this.index.size);
    this.start();
  }

  /** Starts a pass unless one is under way; one asked for as a pass ended starts after it. */
  private start(): void {
    this.pass ??= this.run().finally(() => {
      this.pass = undefined;
      if (this.next < this.upTo) this.start();
    });
  }

  /** A full run of record events is under way: passes wait RELINK_BACKLOG_PAUSE_MS. */
  backlog(): void {
    this.pausedUntil = this.now() + RELINK_BACKLOG_PAUSE_MS;
  }

  /** Whether a pass is under way. */
  get running(): boolean {
    return this.pass !== undefined;
  }

  /** Resolves when no pass is under way. */
  async settled(): Promise<void> {
    while (this.pass) await this.pass;
  }

  private async run(): Promise<void> {
    const tally: RelinkTally = { records: 0, links: 0, possibleMatches: 0 };
    while (this.next < this.upTo) {
      const wait = this.pausedUntil - this.now();
      if (wait > 0) {
        await sleep(wait);
        continue;
      }
      const started = performance.now();
      while (this.next < this.upTo && performance.now() - started < RELINK_SLICE_MS) {
        const entry = this.index.entryAt(this.next++);
        if (!entry || entry.deleted) continue;
        const made = await this.link(entry);
        tally.records++;
        tally.links += made.links;
        tally.possibleMatches += made.possibleMatches;
      }
      await nextTurn();
    }
    this.done(tally);
  }
}
