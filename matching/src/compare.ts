/**
 * Field comparisons: each turns two prepared values into a comparison level and its weight
 * (weights.ts). Pure functions.
 */
import { doubleMetaphone } from 'double-metaphone';
import { distance } from 'fastest-levenshtein';
import { isMistypedDate, type NameRole, type PreparedDate, type PreparedName } from './normalize.ts';
import {
  AMOUNT_WEIGHTS,
  CROSS_ROLE_PENALTY,
  DOB_WEIGHTS,
  type DobLevel,
  INCIDENT_DATE_WEIGHTS,
  MAX_FREQUENCY_BONUS,
  MAX_FREQUENCY_PENALTY,
  MIN_FREQUENCY_RECORDS,
  MIN_WORD_SHARE,
  NAME_WEIGHTS,
  NEAR_DOB_DAYS,
  PHONETIC_MIN_JW,
  REFERENCE_WORD_SHARE,
  SIMILAR_JW,
  type TokenLevel,
} from './weights.ts';

type Codes = readonly [string, string];

function codesMeet(a: Codes, b: Codes): boolean {
  // One-letter codes ('A' for any vowel-led short word) say too little.
  const ok = (c: string) => c.length >= 2;
  return (
    (ok(a[0]) && (a[0] === b[0] || a[0] === b[1])) || (ok(a[1]) && a[1] !== a[0] && (a[1] === b[0] || a[1] === b[1]))
  );
}

function isAdjacentSwap(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return (
    i < a.length - 1 && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2) // rest equal
  );
}

/** Scratch marks of jaroWinkler and isScrambled (one comparison at a time: no allocation per call). */
let marksA = new Uint8Array(64);
let marksB = new Uint8Array(64);
const letterCounts = new Int32Array(128);

/**
 * Jaro–Winkler similarity (0..1, 1 = equal; prefix scale 0.1 over at most 4 letters, boost above
 * 0.7), exactly as the npm package `jaro-winkler` 0.2.8 computes it — the same steps in the same
 * order, so the same floating-point result (compare.test.ts checks it against the package) —
 * without its two arrays and options object per call: it runs for every pair of words of every
 * candidate pair.
 */
export function jaroWinkler(s1: string, s2: string): number {
  const n1 = s1.length;
  const n2 = s2.length;
  if (n1 === 0 || n2 === 0) return 0;
  if (s1 === s2) return 1;
  if (marksA.length < n1) marksA = new Uint8Array(n1 * 2);
  if (marksB.length < n2) marksB = new Uint8Array(n2 * 2);
  const ma = marksA;
  const mb = marksB;
  ma.fill(0, 0, n1);
  mb.fill(0, 0, n2);
  const range = Math.floor(Math.max(n1, n2) / 2) - 1;
  let m = 0;
  for (let i = 0; i < n1; i++) {
    const low = i >= range ? i - range : 0;
    const high = i + range <= n2 - 1 ? i + range : n2 - 1;
    const c = s1.charCodeAt(i);
    for (let j = low; j <= high; j++) {
      if (mb[j] === 0 && c === s2.charCodeAt(j)) {
        ++m;
        ma[i] = 1;
        mb[j] = 1;
        break;
      }
    }
  }
  if (m === 0) return 0;
  let k = 0;
  let transpositions = 0;
  for (let i = 0; i < n1; i++) {
    if (ma[i] !== 1) continue;
    let j = k;
    for (; j < n2; j++) {
      if (mb[j] === 1) {
        k = j + 1;
        break;
      }
    }
    if (s1.charCodeAt(i) !== s2.charCodeAt(j)) ++transpositions;
  }
  let weight = (m / n1 + m / n2 + (m - transpositions / 2) / m) / 3;
  if (weight > 0.7) {
    let l = 0;
    while (l < 4 && l < n1 && l < n2 && s1.charCodeAt(l) === s2.charCodeAt(l)) ++l;
    weight = weight + l * 0.1 * (1 - weight);
  }
  return weight;
}

/** The lowest weight of jaroWinkler that tokenLevel reads. */
const JW_FLOOR = Math.min(PHONETIC_MIN_JW, SIMILAR_JW);

/**
 * Whether jaroWinkler(a, b) is surely below `floor`, from the letters the two words share: the
 * matches Jaro counts are at most the letters in common (counted with repeats), transpositions
 * only lower it, and the Winkler boost is at most the common prefix's, so with c letters in common
 * the weight is at most (c/n1 + c/n2 + 1) / 3, boosted as jaroWinkler boosts (both increase with
 * it). Far cheaper than the weight itself, which most pairs compared (two unrelated words) then
 * never need. Words with a letter outside ASCII are not bounded (false), and the bound keeps a
 * margin of 1e-9 under `floor` for rounding.
 */
export function jaroWinklerSurelyBelow(a: string, b: string, floor: number): boolean {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return false;
  const counts = letterCounts; // zero between calls, as isScrambled leaves it
  let ascii = true;
  let counted = 0;
  for (; counted < n1; counted++) {
    const c = a.charCodeAt(counted);
    if (c >= 128) {
      ascii = false;
      break;
    }
    counts[c]!++;
  }
  let common = 0;
  if (ascii) {
    for (let j = 0; j < n2; j++) {
      const c = b.charCodeAt(j);
      if (c >= 128) {
        ascii = false;
        break;
      }
      if (counts[c]! > 0) {
        counts[c]!--;
        common++;
      }
    }
  }
  for (let i = 0; i < counted; i++) counts[a.charCodeAt(i)] = 0;
  if (!ascii) return false;
  let weight = (common / n1 + common / n2 + 1) / 3;
  if (weight > 0.7) {
    let l = 0;
    while (l < 4 && l < n1 && l < n2 && a.charCodeAt(l) === b.charCodeAt(l)) ++l;
    weight = weight + l * 0.1 * (1 - weight);
  }
  return weight < floor - 1e-9;
}

/**
 * Whether two words have the same letters in another order, one of them perhaps lacking one letter
 * of the other (Ehtan / Ethan, Msrio / Morris; not Msier / Morris).
 */
function isScrambled(a: string, b: string): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (long.length - short.length > 1) return false;
  for (let i = 0; i < long.length; i++) if (long.charCodeAt(i) >= 128) return isScrambledAny(short, long);
  for (let i = 0; i < short.length; i++) if (short.charCodeAt(i) >= 128) return false; // a letter long lacks
  const counts = letterCounts;
  for (let i = 0; i < long.length; i++) counts[long.charCodeAt(i)]!++;
  let scrambled = true;
  for (let i = 0; i < short.length; i++) {
    if (counts[short.charCodeAt(i)]! === 0) {
      scrambled = false;
      break;
    }
    counts[short.charCodeAt(i)]!--;
  }
  for (let i = 0; i < long.length; i++) counts[long.charCodeAt(i)] = 0;
  return scrambled;
}

/** isScrambled for words with letters beyond ASCII (by code point, in a map). */
function isScrambledAny(short: string, long: string): boolean {
  const counts = new Map<string, number>();
  for (const ch of long) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  for (const ch of short) {
    const n = counts.get(ch) ?? 0;
    if (n === 0) return false;
    counts.set(ch, n - 1);
  }
  return true;
}

/**
 * How two name words (two or more letters each) compare, given their Double Metaphone codes. A
 * word given without (a word joined from two: compareNames) has its codes looked up only when the
 * phonetic test is reached: most joined words compared meet no word of the other name, and their
 * lookup (a new string hashed, its codes worked out again once the bound is passed) was an eighth
 * of a match-rate estimate's random pairs.
 */
export function tokenLevel(a: string, b: string, ca: Codes | undefined, cb: Codes | undefined): TokenLevel {
  if (a === b) return 'exact';
  const shorter = Math.min(a.length, b.length);
  if (shorter >= 3 && Math.abs(a.length - b.length) <= 1) {
    if (distance(a, b) === 1 || isAdjacentSwap(a, b)) return 'typo';
  }
  // A pair surely under both thresholds below needs no weight of its own.
  const jw = jaroWinklerSurelyBelow(a, b, JW_FLOOR) ? 0 : jaroWinkler(a, b);
  // Codes alone say too little about short words (elly / joel share one): the spelling must be close too.
  if (jw >= PHONETIC_MIN_JW && codesMeet(ca ?? codesOfJoined(a), cb ?? codesOfJoined(b))) return 'phonetic';
  if (shorter >= 3 && jw >= SIMILAR_JW) return 'similar';
  if (shorter >= 4 && (a.startsWith(b) || b.startsWith(a))) return 'similar';
  if (shorter >= 3 && isScrambled(a, b)) return 'scrambled';
  return 'conflict';
}

/** One aligned pair of name words (or initials). */
export interface NamePair {
  readonly a: string;
  readonly b: string;
  readonly level: TokenLevel;
  /** The pair's weight in bits (the level's, adjusted for word frequency when frequencies are given). */
  readonly weight: number;
  /** A given name agreeing with a surname (the parts swapped or written in the wrong field). */
  readonly crossRole?: true;
}

export interface NameComparison {
  /** Aligned pairs that agree at some level, best first. */
  readonly pairs: readonly NamePair[];
  /** Positions both names fill but where they disagree. */
  readonly conflicts: number;
  /** Comparable positions: the smaller name's word count (words + initials). */
  readonly slots: number;
  /** Sum of the pair weights and the conflict weights. */
  readonly weight: number;
}

/**
 * How common each name word is: the share (0–1) of named records whose name has the word. When
 * given, an exact or typo agreement on a rare word weighs more and on a common word less
 * (term-frequency adjustment); see nameFrequencies.
 */
export type NameFrequencies = (word: string) => number;

interface Side {
  readonly tokens: readonly string[];
  readonly codes: readonly Codes[];
  readonly roles?: readonly NameRole[] | undefined;
}

interface AlignedPair {
  a: string;
  b: string;
  level: TokenLevel;
  crossRole?: true;
}

interface Aligned {
  readonly pairs: AlignedPair[];
  readonly usedA: boolean[];
  readonly usedB: boolean[];
}

/** Whether word i of `a` and word j of `b` are known to be in different parts of their names. */
const crossRole = (a: Side, i: number, b: Side, j: number) =>
  a.roles !== undefined && b.roles !== undefined && a.roles[i] !== b.roles[j];

/** How word i of one side compares with word j of the other. */
type LevelOf = (i: number, j: number) => TokenLevel;

/** Greedy best-first alignment of two word lists; returns the agreeing pairs and the used words. */
function align(a: Side, b: Side, levelOf: LevelOf): Aligned {
  const cand: Array<{ i: number; j: number; level: TokenLevel; w: number; cross: boolean }> = [];
  for (let i = 0; i < a.tokens.length; i++) {
    for (let j = 0; j < b.tokens.length; j++) {
      const level = levelOf(i, j);
      if (level === 'conflict') continue;
      const cross = crossRole(a, i, b, j);
      cand.push({ i, j, level, cross, w: NAME_WEIGHTS[level] - (cross ? CROSS_ROLE_PENALTY : 0) });
    }
  }
  cand.sort((x, y) => y.w - x.w);
  const usedA = a.tokens.map(() => false);
  const usedB = b.tokens.map(() => false);
  const pairs: Aligned['pairs'] = [];
  for (const c of cand) {
    if (usedA[c.i] || usedB[c.j]) continue;
    usedA[c.i] = true;
    usedB[c.j] = true;
    pairs.push({ a: a.tokens[c.i]!, b: b.tokens[c.j]!, level: c.level, ...(c.cross ? { crossRole: true } : {}) });
  }
  return { pairs, usedA, usedB };
}

/** The levels of every word of `a` against every word of `b`, row by row. */
function levels(a: Side, b: Side): TokenLevel[] {
  const out: TokenLevel[] = [];
  for (let i = 0; i < a.tokens.length; i++) {
    for (let j = 0; j < b.tokens.length; j++)
      out.push(tokenLevel(a.tokens[i]!, b.tokens[j]!, a.codes[i]!, b.codes[j]!));
  }
  return out;
}

/**
 * Double Metaphone codes of words joined from two ("kate lin" → "katelin"), the latest
 * MAX_JOINED_CODES of them: computing them costs more than comparing, and the same joined words
 * recur (a name is compared with many others). Bounded, unlike the earlier cache of each name's
 * joined variants, which an index kept for every record it had compared: 0.6 KB a record (issue 36).
 */
const joinedCodes = new Map<string, Codes>();
const MAX_JOINED_CODES = 20_000;

function codesOfJoined(word: string): Codes {
  let codes = joinedCodes.get(word);
  if (codes === undefined) {
    codes = doubleMetaphone(word);
    if (joinedCodes.size >= MAX_JOINED_CODES) joinedCodes.delete(joinedCodes.keys().next().value as string);
    joinedCodes.set(word, codes);
  }
  return codes;
}

/** The name with words i and i+1 written as one ("kate lin" → "katelin"). */
function merged(side: Side, i: number): Side {
  const word = side.tokens[i]! + side.tokens[i + 1]!;
  // The joined word keeps the part of its first word.
  const roles = side.roles ? [...side.roles.slice(0, i + 1), ...side.roles.slice(i + 2)] : undefined;
  return {
    tokens: [...side.tokens.slice(0, i), word, ...side.tokens.slice(i + 2)],
    codes: [...side.codes.slice(0, i), codesOfJoined(word), ...side.codes.slice(i + 2)],
    ...(roles ? { roles } : {}),
  };
}

/**
 * The levels of `side`'s words at and at + 1, joined, against each word of `other`; undefined when
 * none agrees and `other` has no initials: then joining them can change nothing (compareNames).
 */
function joinedLevels(
  side: PreparedName,
  at: number,
  other: PreparedName,
  sideFirst: boolean,
): TokenLevel[] | undefined {
  const word = side.tokens[at]! + side.tokens[at + 1]!;
  const row = other.tokens.map((w, k) =>
    sideFirst ? tokenLevel(word, w, undefined, other.codes[k]!) : tokenLevel(w, word, other.codes[k]!, undefined),
  );
  return other.initials.length === 0 && row.every((level) => level === 'conflict') ? undefined : row;
}

const MAX_MERGE_TOKENS = 4;

interface Outcome {
  readonly pairs: AlignedPair[];
  readonly conflicts: number;
  readonly slots: number;
  /** Sum of the fixed level weights of the agreeing pairs (to choose between variants). */
  readonly agreeing: number;
}

/** A word or initial left over after the words were aligned, with its part of the name. */
interface Rest {
  readonly word: string;
  /** Initials count as given names (they mostly are one). */
  readonly role: NameRole | undefined;
  used: boolean;
}

function leftovers(side: Side, used: readonly boolean[], initials: readonly string[]): Rest[] {
  const rest: Rest[] = [];
  side.tokens.forEach((word, i) => {
    if (!used[i]) rest.push({ word, role: side.roles?.[i], used: false });
  });
  for (const word of initials) rest.push({ word, role: side.roles ? 'given' : undefined, used: false });
  return rest;
}

/**
 * Positions where both names have a word left and those words disagree. Without parts (a full
 * name, or parts that agreed crosswise), the smaller name's leftover words; with given name and
 * surname apart on both sides, only leftovers of the same part: a given name left on one side and a
 * surname on the other are two different things unknown, not a disagreement.
 */
function countConflicts(restA: readonly Rest[], restB: readonly Rest[], withRoles: boolean): number {
  const left = (rest: readonly Rest[], role?: NameRole) =>
    rest.filter((r) => !r.used && (role === undefined || r.role === role)).length;
  if (!withRoles) return Math.min(left(restA), left(restB));
  return (
    Math.min(left(restA, 'given'), left(restB, 'given')) + Math.min(left(restA, 'surname'), left(restB, 'surname'))
  );
}

function finish(a: Side, ia: readonly string[], b: Side, ib: readonly string[], aligned: Aligned): Outcome {
  const pairs = [...aligned.pairs];
  const restA = leftovers(a, aligned.usedA, ia);
  const restB = leftovers(b, aligned.usedB, ib);
  // Initials: against a leftover word with that first letter, or the same initial.
  if (ia.length > 0 || ib.length > 0) {
    for (const x of restA) {
      for (const y of restB) {
        if (y.used || (x.word.length > 1 && y.word.length > 1) || x.word[0] !== y.word[0]) continue;
        x.used = true;
        y.used = true;
        pairs.push({ a: x.word, b: y.word, level: 'initial' });
        break;
      }
    }
  }
  const slots = Math.min(a.tokens.length + ia.length, b.tokens.length + ib.length);
  // Once a word has agreed across the parts (the parts swapped), the parts of the rest say nothing.
  const byPart = a.roles !== undefined && b.roles !== undefined && !pairs.some((p) => p.crossRole);
  const conflicts = countConflicts(restA, restB, byPart);
  const agreeing = pairs.reduce((s, p) => s + NAME_WEIGHTS[p.level] - (p.crossRole ? CROSS_ROLE_PENALTY : 0), 0);
  return { pairs, conflicts, slots, agreeing };
}

/** Adjustment (bits) of an agreement's weight for how common its words are. */
function frequencyAdjustment(a: string, b: string, frequencies: NameFrequencies): number {
  const share = Math.max(frequencies(a), frequencies(b), MIN_WORD_SHARE);
  const adjustment = Math.log2(REFERENCE_WORD_SHARE / share);
  return Math.min(MAX_FREQUENCY_BONUS, Math.max(-MAX_FREQUENCY_PENALTY, adjustment));
}

/**
 * Compares two names, word order free: words are aligned best-first by level (exact, typo,
 * phonetic, similar), then initials; a word split in two on one side ("isab elle") is tried
 * joined. Extra words on the longer name (a middle name) are neither for nor against. The aligned
 * pairs and the disagreeing positions weigh `levelWeights` (NAME_WEIGHTS, or weights estimated from the
 * data: em.ts), less the cross-part penalty, plus the word-frequency adjustment; the alignment
 * itself is chosen by NAME_WEIGHTS, so the same words align the same whatever the weights.
 */
export function compareNames(
  a: PreparedName,
  b: PreparedName,
  frequencies?: NameFrequencies,
  levelWeights: Readonly<Record<TokenLevel, number>> = NAME_WEIGHTS,
): NameComparison {
  // Word against word once: a joined variant differs from its name in one word only, so only that
  // word's row (or column) is compared again.
  const nb = b.tokens.length;
  const base = levels(a, b);
  let best = finish(
    a,
    a.initials,
    b,
    b.initials,
    align(a, b, (i, j) => base[i * nb + j]!),
  );
  const perfect = best.conflicts === 0 && best.pairs.every((p) => p.level === 'exact');
  if (!perfect) {
    // A joined variant counts only when its agreeing words weigh more: joining must not merely
    // hide a disagreeing word by lowering the number of positions. Its joined word is compared
    // first: one that agrees with no word of the other name (most do not) leaves the variant
    // only the name's other words, which align as they did unjoined, so the variant is not tried
    // (unless the other name has initials, which a joined word left over could meet).
    const tryVariant = (sa: Side, sb: Side, levelOf: LevelOf) => {
      const result = finish(sa, a.initials, sb, b.initials, align(sa, sb, levelOf));
      if (result.agreeing > best.agreeing) best = result;
    };
    // In a variant joined at `at`, word k is the name's word k before it and k + 1 after it.
    const unjoined = (k: number, at: number) => (k < at ? k : k + 1);
    if (a.tokens.length >= 2 && a.tokens.length <= MAX_MERGE_TOKENS) {
      for (let at = 0; at + 1 < a.tokens.length; at++) {
        const row = joinedLevels(a, at, b, true);
        if (row === undefined) continue;
        tryVariant(merged(a, at), b, (i, j) => (i === at ? row[j]! : base[unjoined(i, at) * nb + j]!));
      }
    }
    if (b.tokens.length >= 2 && b.tokens.length <= MAX_MERGE_TOKENS) {
      for (let at = 0; at + 1 < b.tokens.length; at++) {
        const column = joinedLevels(b, at, a, false);
        if (column === undefined) continue;
        tryVariant(a, merged(b, at), (i, j) => (j === at ? column[i]! : base[i * nb + unjoined(j, at)]!));
      }
    }
  }
  let weight = best.conflicts * levelWeights.conflict;
  const pairs = best.pairs.map((p): NamePair => {
    let w = levelWeights[p.level] - (p.crossRole ? CROSS_ROLE_PENALTY : 0);
    if (frequencies && (p.level === 'exact' || p.level === 'typo')) w += frequencyAdjustment(p.a, p.b, frequencies);
    weight += w;
    return { ...p, weight: w };
  });
  return { pairs, conflicts: best.conflicts, slots: best.slots, weight };
}

/**
 * Name-word frequencies from a set of records (for compareNames): the share of named records
 * whose name has each word. Sets under MIN_FREQUENCY_RECORDS named records give undefined (too
 * few to tell a rare word from an unseen one).
 */
export function nameFrequencies(names: Iterable<PreparedName>): NameFrequencies | undefined {
  const counts = new Map<string, number>();
  let total = 0;
  for (const name of names) {
    if (name.tokens.length === 0) continue;
    total++;
    for (const t of name.tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return frequenciesFromCounts((word) => counts.get(word) ?? 0, total);
}

/**
 * Name-word frequencies from counts kept elsewhere (a service's index): `count(word)` = how many
 * named records have the word (PreparedName.tokens), `total` = how many records have a name.
 * Undefined under MIN_FREQUENCY_RECORDS records. `count` is called during scoring, so it should
 * answer from memory. A word no record has ('' for one) gets the share of one record, 1 / total:
 * the smallest share there is (the scorer's lookAlikeNames reads it so).
 */
export function frequenciesFromCounts(count: (word: string) => number, total: number): NameFrequencies | undefined {
  if (!(total >= MIN_FREQUENCY_RECORDS)) return undefined;
  return (word) => Math.max(1, count(word)) / total;
}

/** The kinds of one-slip difference between two dates of birth. */
export type DobSlip = 'one digit' | 'digits swapped' | 'day and month swapped' | 'day ±1' | 'month ±1' | 'year ±1';

/** The slip that turns one date into the other, if there is exactly one. */
export function dobSlip(a: PreparedDate, b: PreparedDate): DobSlip | undefined {
  if (a.year === b.year && a.month === b.month && Math.abs(a.day - b.day) === 1) return 'day ±1';
  if (a.year === b.year && a.day === b.day && Math.abs(a.month - b.month) === 1) return 'month ±1';
  if (a.month === b.month && a.day === b.day && Math.abs(a.year - b.year) === 1) return 'year ±1';
  if (a.year === b.year && a.month === b.day && a.day === b.month) return 'day and month swapped';
  let diff = 0;
  for (let i = 0; i < 8; i++) if (a.digits[i] !== b.digits[i]) diff++;
  if (diff === 1) return 'one digit';
  if (diff === 2 && isAdjacentSwap(a.digits, b.digits)) return 'digits swapped';
  return undefined;
}

export interface DobComparison {
  readonly level: DobLevel;
  readonly slip?: DobSlip;
  readonly weight: number;
}

/**
 * Two dates of birth: the same, one slip apart (also when one of them is impossible as written:
 * compared on its digits), near, two of three parts the same, or different. An impossible date
 * that is no slip of the other is no evidence against it (it is known to be wrong as typed), and
 * two impossible dates are no evidence at all, unless they are the same mistyped date (1941-23-03
 * twice: one copy of a typo; see isMistypedDate): those count as the same date.
 */
export function compareDobs(a: PreparedDate, b: PreparedDate): DobComparison {
  if (a.impossible && b.impossible) {
    // The same mistyped date twice is one copy of it, as telling as the same date; other junk
    // typed the same way (9999-99-99, month and day both wrong, February 30) is still junk.
    if (a.digits === b.digits && isMistypedDate(a)) return { level: 'exact', weight: DOB_WEIGHTS.exact };
    return { level: 'impossible', weight: DOB_WEIGHTS.impossible };
  }
  if (a.digits === b.digits) return { level: 'exact', weight: DOB_WEIGHTS.exact };
  const slip = dobSlip(a, b);
  if (slip) return { level: 'slip', slip, weight: DOB_WEIGHTS.slip };
  if (Math.abs(a.days - b.days) <= NEAR_DOB_DAYS) return { level: 'near', weight: DOB_WEIGHTS.near };
  if (a.impossible || b.impossible) return { level: 'impossible', weight: DOB_WEIGHTS.impossible };
  const same = Number(a.year === b.year) + Number(a.month === b.month) + Number(a.day === b.day);
  if (same === 2) return { level: 'twoParts', weight: DOB_WEIGHTS.twoParts };
  return { level: 'mismatch', weight: DOB_WEIGHTS.mismatch };
}

/** Incident dates: weight by the difference in days. */
export function compareIncidentDates(a: PreparedDate, b: PreparedDate): { days: number; weight: number } {
  const days = Math.abs(a.days - b.days);
  const weight = INCIDENT_DATE_WEIGHTS.find(([max]) => days <= max)![1];
  return { days, weight };
}

/** Case amounts: weight by the relative difference |a − b| / max(a, b). */
export function compareAmounts(a: number, b: number): { relative: number; weight: number } {
  const relative = Math.abs(a - b) / Math.max(a, b);
  const weight = AMOUNT_WEIGHTS.find(([max]) => relative <= max + 1e-12)![1];
  return { relative, weight };
}
