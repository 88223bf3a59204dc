import { incidentKey } from '@nrad/contracts';

/**
 * Text normalization for search and matching (ARCHITECTURE.md "Money, dates, names"): stored
 * beside the text as entered, so queries compare plain lower-case ASCII-folded words and never need
 * collation (which FerretDB lacks) or a pattern built from user input.
 */

/** Lower case, accents removed, every run of non-letters/digits a single space, trimmed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The distinct normalized words of a text, in order of first appearance. */
export function words(text: string | null | undefined): string[] {
  if (!text) return [];
  const out = normalizeText(text).split(' ');
  return [...new Set(out.filter(Boolean))];
}

/** The words of several texts together (free-text search tokens). */
export function tokensOf(...texts: Array<string | null | undefined>): string[] {
  return [...new Set(texts.flatMap((t) => words(t)))];
}

/** What separates the parts of an incident number. */
const INCIDENT_PART_SEPARATOR = /[-/. ]+/g;

/**
 * An incident key from the start of each of its parts ("BPS-2026-001" → "BPS-2026-001",
 * "2026-001", "001"): searching by the start of a number or of any of its parts is then a search
 * by prefix of one of these.
 */
export function incidentKeyParts(key: string): string[] {
  const parts = [key];
  for (const m of key.matchAll(INCIDENT_PART_SEPARATOR)) {
    const rest = key.slice(m.index + m[0].length);
    if (rest) parts.push(rest);
  }
  return [...new Set(parts)];
}

/** The start of an incident number as searched: its key without leading separators. */
export function incidentPrefix(searched: string): string {
  return incidentKey(searched).replace(/^[-/. ]+/, '');
}

/**
 * The names written as one word of several parts, joined ("Marie-Hélène" → "mariehelene",
 * "O'Brien" → "obrien"): a name is then found with its parts written apart or together.
 */
export function nameCompounds(text: string | null | undefined): string[] {
  if (!text) return [];
  const out = new Set<string>();
  for (const chunk of text.split(/\s+/)) {
    const parts = normalizeText(chunk).split(' ').filter(Boolean);
    if (parts.length > 1) out.add(parts.join(''));
  }
  return [...out];
}

/** Words shorter than this must match exactly (one typo in "Li" would match half the register). */
export const MIN_FUZZY_WORD = 3;

/**
 * A word and its one-deletion variants (the symmetric-delete scheme): two words within one edit of
 * each other always share a variant, so an index on the variants of the name vocabulary finds every
 * candidate term and `withinOneEdit` then confirms it.
 */
export function deletionVariants(word: string): string[] {
  if (word.length < MIN_FUZZY_WORD) return [word];
  const out = new Set([word]);
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

/**
 * Whether two words are at most one edit apart: one letter inserted, removed or changed, or two
 * neighbouring letters swapped. Words shorter than MIN_FUZZY_WORD must be equal.
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length < MIN_FUZZY_WORD || b.length < MIN_FUZZY_WORD) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    // substitution at i, or transposition of i and i+1
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // one insertion/deletion at i
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Compounds of a name tried in place of their parts, at most (2^n ways of reading the name). */
const MAX_COMPOUNDS = 4;

/**
 * Whether a suspect's name matches what was searched for: every searched word is within one edit
 * of a different word of the name, in any order, ignoring case and accents. A compound of the name
 * ("mariehelene" of "Marie-Hélène") may stand for its parts: "mariehelene dubois" and "marie
 * helene dubois" both find "Marie-Hélène Dubois".
 */
export function nameMatches(
  queryWords: readonly string[],
  nameWords: readonly string[],
  compounds: readonly string[] = [],
): boolean {
  if (wordsMatch(queryWords, nameWords)) return true;
  // Each compound replaces the consecutive words it joins.
  const spans = compounds.slice(0, MAX_COMPOUNDS).flatMap((c) => {
    for (let i = 0; i < nameWords.length; i++) {
      let joined = '';
      for (let j = i; j < nameWords.length && joined.length < c.length; j++) {
        joined += nameWords[j];
        if (joined === c && j > i) return [{ compound: c, from: i, to: j }];
      }
    }
    return [];
  });
  for (let chosen = 1; chosen < 1 << spans.length; chosen++) {
    const used = spans.filter((_, k) => chosen & (1 << k));
    const overlapping = used.some((a, x) => used.some((b, y) => x < y && a.from <= b.to && b.from <= a.to));
    if (overlapping) continue;
    const units = nameWords.filter((_, i) => !used.some((s) => i >= s.from && i <= s.to));
    if (wordsMatch(queryWords, [...units, ...used.map((s) => s.compound)])) return true;
  }
  return false;
}

/** Every searched word within one edit of a different one of the words. */
function wordsMatch(queryWords: readonly string[], nameWords: readonly string[]): boolean {
  const used = new Set<number>();
  // Exact matches first, so "ann anne" does not spend "anne" on the fuzzy "ann".
  const pending: string[] = [];
  for (const q of queryWords) {
    const at = nameWords.findIndex((w, i) => !used.has(i) && w === q);
    if (at >= 0) used.add(at);
    else pending.push(q);
  }
  for (const q of pending) {
    const at = nameWords.findIndex((w, i) => !used.has(i) && withinOneEdit(q, w));
    if (at < 0) return false;
    used.add(at);
  }
  return true;
}

/** Escapes text for use inside a regular expression (RE2 and JavaScript alike). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
