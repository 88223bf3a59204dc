/**
 * Normalization of the values the scorer compares: names folded to plain lower-case ASCII words,
 * dates parsed and checked, amounts made positive numbers. Placeholders ("UNKNOWN", "N/A",
 * 1900-01-01, an amount of 0) and absurd values come out as missing, so they are never evidence.
 * Pure functions, no I/O.
 */
import anyAscii from 'any-ascii';
import { doubleMetaphone } from 'double-metaphone';

/** A name as the scorer compares it. */
export interface PreparedName {
  /** Distinct words of two or more letters, in order of appearance. */
  readonly tokens: readonly string[];
  /** Double Metaphone codes of each token ([primary, secondary], '' when the word has none). */
  readonly codes: ReadonlyArray<readonly [string, string]>;
  /** Single letters (initials), in order of appearance. */
  readonly initials: readonly string[];
  /**
   * Each token's part of the name, when the name came as given name and surname apart
   * (prepareNameParts); absent for a full name in one field, whose word order says nothing.
   */
  readonly roles?: readonly NameRole[];
}

/** The part of a name a word was written in. */
export type NameRole = 'given' | 'surname';

/** Words that stand for "no name" when they are all a name has ("N/A", "Not known", "John Doe"). */
const PLACEHOLDER_NAMES = new Set([
  'na',
  'nk',
  'nil',
  'none',
  'null',
  'nan',
  'undefined',
  'unknown',
  'unkown',
  'unk',
  'unkn',
  'notknown',
  'notgiven',
  'notstated',
  'notavailable',
  'notapplicable',
  'notrecorded',
  'noname',
  'unnamed',
  'anon',
  'anonymous',
  'tbc',
  'tba',
  'tbd',
  'test',
  'fnulnu',
  'johndoe',
  'janedoe',
  'doe',
  'suspect',
  'unknownsuspect',
  'unidentified',
  'unidentifiedmale',
  'unidentifiedfemale',
  'unknownmale',
  'unknownfemale',
  'withheld',
  'redacted',
]);

/** Words that are never evidence inside a name: placeholders for one part, titles, suffixes. */
const IGNORED_TOKENS = new Set([
  'unknown',
  'unkown',
  'unk',
  'unkn',
  'fnu',
  'lnu',
  'nfn',
  'nln',
  'nmn',
  'nmi',
  'null',
  'nil',
  'none',
  'undefined',
  'anonymous',
  'unnamed',
  'noname',
  'aka',
  'alias',
  'mr',
  'mrs',
  'ms',
  'mx',
  'miss',
  'dr',
  'prof',
  'rev',
  'sir',
  'jr',
  'jnr',
  'sr',
  'snr',
  'ii',
  'iii',
  'iv',
]);

/** Name particles: de la Cruz ≈ Cruz, van der Berg ≈ Berg. */
const PARTICLES = new Set([
  'da',
  'de',
  'del',
  'della',
  'der',
  'den',
  'di',
  'la',
  'van',
  'von',
  'dos',
  'das',
  'ter',
  'ten',
]);

/**
 * Lower-case ASCII words of a text: transliterated (é → e, ß → ss, Ł → l, Cyrillic and other
 * scripts romanized), apostrophes and hyphens inside a name dropped (O'Brien → obrien,
 * Smith-Jones → smithjones: one word, so a double name does not count twice; the scorer still
 * finds "smith jones" written apart), every other run of non-letters a word break (dots, commas,
 * digits, spaces).
 */
export function foldName(text: string): string {
  // Only letters (any script) and marks carry a name; symbols and emoji would transliterate to words.
  return anyAscii(text.normalize('NFC').replace(/[^\p{L}\p{M}'`´’‘‐‑–-]+/gu, ' '))
    .toLowerCase()
    .replace(/(?<=[a-z])\s*[-‐‑–]\s*(?=[a-z])|['`´’‘]/g, '')
    .replace(/[^a-z]+/g, ' ')
    .trim();
}

/** Whether a name is only punctuation, a placeholder or a run of one letter ("XXX"). */
export function isPlaceholderName(folded: string): boolean {
  const compact = folded.replace(/ /g, '');
  if (compact.length === 0) return true;
  if (PLACEHOLDER_NAMES.has(compact)) return true;
  return compact.length >= 2 && /^(.)\1+$/.test(compact);
}

const EMPTY_NAME: PreparedName = { tokens: [], codes: [], initials: [] };

/** The words of one part of a name: folded, placeholders and ignored words dropped. */
function nameWords(part: string | null | undefined): string[] {
  if (typeof part !== 'string') return [];
  const folded = foldName(part);
  if (isPlaceholderName(folded)) return [];
  return folded.split(' ').filter((word) => word && !IGNORED_TOKENS.has(word));
}

function buildName(words: ReadonlyArray<{ word: string; role?: NameRole }>, withRoles: boolean): PreparedName {
  if (words.length === 0) return EMPTY_NAME;
  // Particles (de la Cruz, van der Berg) say little; they are dropped unless they are all there is.
  const core = words.filter((w) => !PARTICLES.has(w.word));
  const kept = core.length > 0 ? core : words;
  const tokens: string[] = [];
  const roles: NameRole[] = [];
  const initials: string[] = [];
  for (const { word, role } of kept) {
    if (word.length === 1) {
      if (!initials.includes(word)) initials.push(word);
    } else if (!tokens.includes(word)) {
      tokens.push(word);
      roles.push(role ?? 'given');
    }
  }
  // A name of initials only ("J. S.") keeps them; a full word elsewhere already covers its initial.
  const codes = tokens.map((t) => doubleMetaphone(t));
  return withRoles ? { tokens, codes, initials, roles } : { tokens, codes, initials };
}

/** Prepares a full name (or its parts, joined in the given order, word order free) for comparison. */
export function prepareName(...parts: ReadonlyArray<string | null | undefined>): PreparedName {
  return buildName(
    parts.flatMap((part) => nameWords(part).map((word) => ({ word }))),
    false,
  );
}

/**
 * Prepares a name given as given name and surname apart: each word keeps its part (roles), so a
 * given name is compared with a given name first, and a name with only a given name is not held
 * against one with only a surname (there is nothing to compare).
 */
export function prepareNameParts(given: string | null | undefined, surname: string | null | undefined): PreparedName {
  return buildName(
    [
      ...nameWords(given).map((word) => ({ word, role: 'given' as const })),
      ...nameWords(surname).map((word) => ({ word, role: 'surname' as const })),
    ],
    true,
  );
}

/** Whether a prepared name carries any evidence. */
export function hasName(name: PreparedName): boolean {
  return name.tokens.length > 0 || name.initials.length > 0;
}

/** A calendar date, checked. `days` counts days since 1970-01-01 (for date differences). */
export interface PreparedDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** YYYYMMDD, for digit-level comparison. */
  readonly digits: string;
  /** Days since 1970-01-01; NaN for an impossible date of birth (see parseDobDigits). */
  readonly days: number;
  /** A date of birth written with an impossible part (month 13, day 42, year 9185), kept as typed. */
  readonly impossible?: true;
}

/** Dates that systems and clerks enter when the real one is unknown: never evidence. */
export const PLACEHOLDER_DATES: ReadonlySet<string> = new Set([
  '00010101',
  '18000101',
  '19000101',
  '19010101',
  '18991231',
  '19700101',
  '20000101',
  '99991231',
]);

/**
 * Dates before this year or after MAX_YEAR are treated as absurd (no evidence). Early enough for
 * historical person data in link-csv; the records service itself takes no date before 1800.
 */
export const MIN_YEAR = 1000;
export const MAX_YEAR = 2100;

/** The order of day and month in a slash or dot date ("03/04/1980"). */
export type DayMonthOrder = 'dmy' | 'mdy';

/** 1984-06-15, 1984/6/15 or 1984.06.15, perhaps followed by a time. */
const ISO_DATE = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:[T ].*)?$/;
/** 15/06/1984, 15.06.1984 or 15-06-1984 (or month first), perhaps followed by a time. */
const SLASH_DATE = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})(?:[T ].*)?$/;

/**
 * The day/month order of a column of dates written day-or-month first (15/06/1984, 06/15/1984):
 * 'mdy' when some value has its second part over 12 and none its first, else 'dmy'. Undefined
 * when no value is written that way.
 */
export function detectDayMonthOrder(values: Iterable<string | null | undefined>): DayMonthOrder | undefined {
  let seen = false;
  let dayFirst = false;
  let monthFirst = false;
  for (const value of values) {
    const m = typeof value === 'string' ? SLASH_DATE.exec(value.trim()) : null;
    if (!m) continue;
    seen = true;
    if (Number(m[1]) > 12) dayFirst = true;
    if (Number(m[2]) > 12) monthFirst = true;
  }
  if (!seen) return undefined;
  return monthFirst && !dayFirst ? 'mdy' : 'dmy';
}

/**
 * Parses a date: YYYY-MM-DD (also with '/' or '.', any time part ignored), YYYYMMDD, or DD/MM/YYYY
 * (MM/DD/YYYY with `order` 'mdy'; '.', '-' and '/' separators). Returns undefined for an empty,
 * malformed, impossible (2021-02-30), absurd (outside MIN_YEAR..MAX_YEAR) or placeholder
 * (1900-01-01) date.
 */
export function parseDate(value: string | null | undefined, order: DayMonthOrder = 'dmy'): PreparedDate | undefined {
  const parts = dateParts(value, order);
  return parts ? makeDate(...parts) : undefined;
}

/** Year, month and day as written in a date of one of parseDate's forms, whether or not it exists. */
function dateParts(value: string | null | undefined, order: DayMonthOrder): [number, number, number] | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const iso = ISO_DATE.exec(text);
  const compact = iso ? null : /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  const slash = iso || compact ? null : SLASH_DATE.exec(text);
  let parts: [string, string, string] | undefined;
  if (iso) parts = [iso[1]!, iso[3]!, iso[4]!];
  else if (compact) parts = [compact[1]!, compact[2]!, compact[3]!];
  else if (slash) parts = order === 'dmy' ? [slash[3]!, slash[2]!, slash[1]!] : [slash[3]!, slash[1]!, slash[2]!];
  return parts ? [Number(parts[0]), Number(parts[1]), Number(parts[2])] : undefined;
}

/** YYYYMMDD of a year, month and day as typed (a year of 0998 keeps its 0, month 0 is 00). */
const typedDigits = (year: number, month: number, day: number) =>
  `${String(year).padStart(4, '0')}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;

/** The dates one slip away from YYYYMMDD digits: one digit changed, or two neighbouring digits swapped. */
function* slipsOf(digits: string): Generator<string> {
  for (let i = 0; i < 8; i++) {
    for (let d = 0; d <= 9; d++) {
      const c = String(d);
      if (c !== digits[i]) yield digits.slice(0, i) + c + digits.slice(i + 1);
    }
  }
  for (let i = 0; i < 7; i++) {
    if (digits[i] !== digits[i + 1]) yield digits.slice(0, i) + digits[i + 1] + digits[i] + digits.slice(i + 2);
  }
}

/**
 * Whether digits that are no date could be one slip of a date of birth: one digit changed or two
 * neighbours swapped gives a real date (as parseDate reads it), and none of those slips is a
 * placeholder (1900-00-01 is 1900-01-01 mistyped, so no evidence; 0000-00-00 is one slip of nothing).
 */
function isSlipOfRealDate(digits: string): boolean {
  let real = false;
  for (const slip of slipsOf(digits)) {
    if (PLACEHOLDER_DATES.has(slip)) return false;
    if (!real)
      real = makeDate(Number(slip.slice(0, 4)), Number(slip.slice(4, 6)), Number(slip.slice(6, 8))) !== undefined;
  }
  return real;
}

/**
 * Whether a date of birth impossible as written reads as a mistyped real one: a part is out of its
 * range (month 00 or 23, day 00 or 42, year 0998 or 9185) and the digits are one slip of a real
 * date. A day past the end of its month (February 30) has every part in range: as likely an invalid
 * value some system wrote as a mistype, so it does not count.
 */
export function isMistypedDate(date: PreparedDate): boolean {
  const { year, month, day } = date;
  const outOfRange = year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1 || day > 31;
  return outOfRange && isSlipOfRealDate(date.digits);
}

/**
 * A date of birth as parseDate reads it, or, when it is written as a date but cannot be one (month
 * 13, day 42, February 30, year 9185), its digits as typed, marked `impossible`: most such dates
 * are the true date with a digit mistyped or two swapped, so they are compared digit by digit
 * rather than thrown away. A month or day of 00 and a year outside MIN_YEAR..MAX_YEAR (0998, 2999)
 * are kept so only when the digits are one slip of a real date (0998-09-05, 1998-00-03; not
 * 0000-00-00, 1998-00-00 nor 1900-00-01, a placeholder mistyped). Placeholders and text that is no
 * date stay undefined.
 */
export function parseDobDigits(
  value: string | null | undefined,
  order: DayMonthOrder = 'dmy',
): PreparedDate | undefined {
  const valid = parseDate(value, order);
  if (valid) return valid;
  const parts = dateParts(value, order);
  if (!parts) return undefined;
  const [year, month, day] = parts;
  const digits = typedDigits(year, month, day);
  if (digits.length !== 8 || PLACEHOLDER_DATES.has(digits)) return undefined;
  const plainParts = year >= MIN_YEAR && year <= MAX_YEAR && month >= 1 && day >= 1;
  if (!plainParts && !isSlipOfRealDate(digits)) return undefined;
  return { year, month, day, digits, days: Number.NaN, impossible: true };
}

/** A date from its three numeric parts (for data kept in three columns); same checks as parseDate. */
export function makeDate(year: number, month: number, day: number): PreparedDate | undefined {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return undefined;
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return undefined;
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const digits = `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
  if (PLACEHOLDER_DATES.has(digits)) return undefined;
  return { year, month, day, digits, days: Math.round(ms / 86_400_000) };
}

/** An amount as evidence: a finite positive number, else undefined (0 is the form's default). */
export function prepareAmount(value: number | string | null | undefined): number | undefined {
  const n = typeof value === 'string' ? Number(value.replace(/[\s,]/g, '')) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  return n;
}
