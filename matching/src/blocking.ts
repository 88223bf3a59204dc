/**
 * Blocking: the keys under which a record is indexed, so that candidate pairs are the records that
 * share at least one key. Keys are plain strings, at most MAX_KEYS per record; the service stores
 * them with each record and finds candidates with `$in`. Every pair the scorer could put above the
 * threshold shares a key:
 *
 * - `d:<YYYYMMDD>` — same date of birth (any names: a date of birth plus one agreeing word is
 *   already a match);
 * - `ym:<YYYYMM>:<code>`, `yd:<YYYY><DD>:<code>`, `md:<MMDD>:<code>`, `ys:<YYYY><sorted MM,DD>:<code>` —
 *   a Double Metaphone code of a name word with the date of birth less one of its parts, so a date
 *   with one slip (a digit, ±1 in one part, day and month swapped) still meets its original when
 *   one word sounds alike;
 * - `n:<code>:<code>` — the codes of two name words, in sorted order (word order free), for pairs
 *   whose dates of birth are missing or far apart but whose names agree;
 * - `w:<word>:<letter>` — a word spelled the same and the first letter of another (a typo that
 *   changes the other word's code);
 * - `p:<ab>:<cd>` — the first two letters of two words (typos in both words, after their start).
 *
 * Placeholder names and dates give no keys, so no candidate is made from them alone.
 */
import { exclusion, type MatchInput, type PreparedRecord, prepareRecord } from './scorer.ts';

/** The most keys a record gets. */
export const MAX_KEYS = 30;
/** Name words used for keys (the longest ones, which say most). */
const KEY_WORDS = 3;

const pad2 = (n: number) => String(n).padStart(2, '0');

function wordCodes(record: PreparedRecord): string[][] {
  const { tokens, codes } = record.name;
  const order = tokens
    .map((t, i) => ({ t, i }))
    .sort((x, y) => y.t.length - x.t.length || x.i - y.i)
    .slice(0, KEY_WORDS);
  return order.map(({ i }) => {
    const [primary, secondary] = codes[i]!;
    const list = [primary || tokens[i]!];
    if (secondary && secondary !== primary) list.push(secondary);
    return list;
  });
}

function isPrepared(record: PreparedRecord | MatchInput): record is PreparedRecord {
  return typeof (record as PreparedRecord).name === 'object' && (record as PreparedRecord).name !== null;
}

/** The blocking keys of a record (at most MAX_KEYS, no duplicates; none from placeholders). */
export function blockingKeys(input: PreparedRecord | MatchInput): string[] {
  const record = isPrepared(input) ? input : prepareRecord(input);
  const keys = new Set<string>();
  const words = wordCodes(record);
  const dob = record.dob;
  if (dob) keys.add(`d:${dob.digits}`);
  // Pairs of words: primary codes first, then the secondary variants while room remains.
  const pairKeys: string[] = [];
  const variantKeys: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      for (const x of words[i]!) {
        for (const y of words[j]!) {
          const key = `n:${x < y ? `${x}:${y}` : `${y}:${x}`}`;
          (x === words[i]![0] && y === words[j]![0] ? pairKeys : variantKeys).push(key);
        }
      }
    }
  }
  // A word spelled the same and the first letter of another: catches a typo that changes a code.
  const { tokens } = record.name;
  const longest = [...tokens].sort((x, y) => y.length - x.length).slice(0, KEY_WORDS);
  for (const w of longest) for (const o of longest) if (o !== w) pairKeys.push(`w:${w}:${o[0]}`);
  // The first two letters of two words (typos in both words, further on than their start).
  for (let i = 0; i < longest.length; i++) {
    for (let j = i + 1; j < longest.length; j++) {
      const x = longest[i]!.slice(0, 2);
      const y = longest[j]!.slice(0, 2);
      pairKeys.push(`p:${x < y ? `${x}:${y}` : `${y}:${x}`}`);
    }
  }
  const dobKeys: string[] = [];
  if (dob) {
    const y = String(dob.year);
    const m = pad2(dob.month);
    const d = pad2(dob.day);
    const [lo, hi] = dob.month <= dob.day ? [m, d] : [d, m];
    for (const list of words) {
      const code = list[0]!;
      dobKeys.push(`ym:${y}${m}:${code}`, `yd:${y}${d}:${code}`, `md:${m}${d}:${code}`);
      if (dob.day <= 12 && dob.day !== dob.month) dobKeys.push(`ys:${y}${lo}${hi}:${code}`);
    }
  }
  for (const key of [...pairKeys, ...dobKeys, ...variantKeys]) {
    if (keys.size >= MAX_KEYS) break;
    keys.add(key);
  }
  return [...keys];
}

export interface CandidateOptions {
  /** Keys shared by more records than this are skipped (a too-common key says little). */
  readonly maxBlockSize?: number;
  /** The same for keys of names alone (isNameKey): MAX_NAME_BLOCK_SIZE unless given. */
  readonly maxNameBlockSize?: number;
}

export interface CandidateResult {
  /** Pairs as [left index, right index] (dedupe mode: left < right, both into the one list). */
  readonly pairs: Array<[number, number]>;
  /** Keys skipped for being shared by more than maxBlockSize records. */
  readonly skippedKeys: number;
}

/** The most records a blocking key may be shared by before it is skipped (too common to say much). */
export const MAX_BLOCK_SIZE = 2000;

/**
 * The same for a key of names alone (n:, w:, p:, no part of the date of birth: isNameKey). Such
 * keys find pairs whose dates of birth are far apart, which only names that are rare together can
 * carry over the review threshold; a key shared by over 200 records is a common name. On a small
 * island's names (400 surnames, 300 given names, Zipf; 100,000 records), the common surnames'
 * `w:` keys were most of a new record's candidates: capped at 200 a search examined 68 records
 * instead of 255 and took 1.4 ms instead of 5.3, and of 1,000 altered copies of indexed records
 * (typos, words swapped, a day or a year off, another date of birth) every one scoring 50 or more
 * was still found (ADR 0022).
 */
export const MAX_NAME_BLOCK_SIZE = 200;

/** Whether a blocking key is of names alone (n:, w:, p:), without any part of a date of birth. */
export const isNameKey = (key: string): boolean =>
  key.charCodeAt(1) === 58 && (key[0] === 'n' || key[0] === 'w' || key[0] === 'p');

function index(keysList: readonly (readonly string[])[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  keysList.forEach((keys, i) => {
    for (const key of keys) {
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    }
  });
  return map;
}

/**
 * The candidate pairs of in-memory records by their blocking keys: between `left` and `right`, or
 * within `left` when `right` is omitted (each unordered pair once, never a record with itself).
 * Pairs of one organization, or of one id, are left out (they can never match).
 */
export function candidatePairs(
  left: readonly PreparedRecord[],
  right?: readonly PreparedRecord[],
  options: CandidateOptions = {},
): CandidateResult {
  const maxBlock = options.maxBlockSize ?? MAX_BLOCK_SIZE;
  const maxNameBlock = options.maxNameBlockSize ?? MAX_NAME_BLOCK_SIZE;
  const other = right ?? left;
  const leftKeys = left.map(blockingKeys);
  const byKey = index(right ? right.map(blockingKeys) : leftKeys);
  const skipped = new Set<string>();
  const seen = new Int32Array(other.length).fill(-1);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < left.length; i++) {
    const a = left[i]!;
    for (const key of leftKeys[i]!) {
      const block = byKey.get(key);
      if (!block) continue;
      if (block.length > (isNameKey(key) ? maxNameBlock : maxBlock)) {
        skipped.add(key);
        continue;
      }
      for (const j of block) {
        if (seen[j] === i || (!right && j <= i)) continue;
        seen[j] = i;
        if (exclusion(a, other[j]!)) continue;
        pairs.push([i, j]);
      }
    }
  }
  return { pairs, skippedKeys: skipped.size };
}
