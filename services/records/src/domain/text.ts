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

/** Incident numbers are unique ignoring letter case and spacing: "bps-2024-1 " is "BPS-2024-1". */
export function incidentKey(incidentNumber: string): string {
  return incidentNumber.trim().replace(/\s+/g, ' ').toUpperCase();
}

/** Words shorter than this must match exactly (one typo in "Li" would match half the register). */
export const MIN_FUZZY_WORD = 3;

/**
 * A word and its one-deletion variants (the symmetric-delete scheme): two words within one edit of
 * each other always share a variant, so an index on the stored variants finds every candidate and
 * `withinOneEdit` then confirms it.
 */
export function deletionVariants(word: string): string[] {
  if (word.length < MIN_FUZZY_WORD) return [word];
  const out = new Set([word]);
  for (let i = 0; i < word.length; i++) out.add(word.slice(0, i) + word.slice(i + 1));
  return [...out];
}

/** The variants of every word of a name (stored with the record for fuzzy name search). */
export function nameVariants(nameWords: readonly string[]): string[] {
  return [...new Set(nameWords.flatMap(deletionVariants))];
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

/**
 * Whether a suspect's name matches what was searched for: every searched word is within one edit
 * of a different word of the name, in any order, ignoring case and accents.
 */
export function nameMatches(queryWords: readonly string[], nameWords: readonly string[]): boolean {
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
