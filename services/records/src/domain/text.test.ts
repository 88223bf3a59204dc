import { incidentKey } from '@nrad/contracts';
import { describe, expect, it } from 'vitest';
import {
  deletionVariants,
  escapeRegex,
  incidentKeyParts,
  incidentPrefix,
  nameCompounds,
  nameMatches,
  normalizeText,
  tokensOf,
  withinOneEdit,
  words,
} from './text.ts';

describe('normalization', () => {
  it('folds case and accents and splits on anything that is not a letter or digit', () => {
    expect(normalizeText('  José  MÜLLER-Øberg, Jr. ')).toBe('jose muller øberg jr');
    expect(words('Ana-María  ana maría')).toEqual(['ana', 'maria']);
    expect(tokensOf('BPS-2024/001', null, 'Fraud', undefined)).toEqual(['bps', '2024', '001', 'fraud']);
    expect(incidentKey('  bps-2024  001 ')).toBe('BPS-2024 001');
  });

  it('escapes every pattern metacharacter', () => {
    const nasty = ['.', '*', '+', '?', '^', '$', '{', '}', '(', ')', '|', '[', ']', '\\', '/', '-'].join('');
    expect(new RegExp(`^${escapeRegex(nasty)}$`).test(nasty)).toBe(true);
    expect(new RegExp(escapeRegex('a.c')).test('abc')).toBe(false);
  });
});

describe('one typo per word', () => {
  it.each([
    ['smith', 'smith', true],
    ['smith', 'smyth', true], // substitution
    ['smith', 'smiths', true], // insertion
    ['smith', 'smth', true], // deletion
    ['smith', 'msith', true], // neighbours swapped
    ['smith', 'smiht', true],
    ['smith', 'smyht', false], // two edits
    ['smith', 'jones', false],
    ['smith', 'smithson', false],
    ['li', 'lu', false], // short words must be exact
    ['ann', 'anne', true],
  ])('%s ~ %s → %s', (a, b, expected) => {
    expect(withinOneEdit(a, b)).toBe(expected);
    expect(withinOneEdit(b, a)).toBe(expected);
  });

  it('finds every pair within one edit through a shared deletion variant', () => {
    const base = 'garcia';
    const letters = 'abcgirz';
    const near = new Set<string>();
    for (let i = 0; i <= base.length; i++) {
      for (const c of letters) near.add(base.slice(0, i) + c + base.slice(i)); // insertions
      if (i < base.length) {
        near.add(base.slice(0, i) + base.slice(i + 1)); // deletions
        for (const c of letters) near.add(base.slice(0, i) + c + base.slice(i + 1)); // substitutions
      }
      if (i < base.length - 1) near.add(base.slice(0, i) + base[i + 1] + base[i] + base.slice(i + 2)); // swaps
    }
    const variants = new Set(deletionVariants(base));
    for (const word of near) {
      expect(withinOneEdit(base, word)).toBe(true);
      expect(deletionVariants(word).some((v) => variants.has(v))).toBe(true);
    }
  });

  it('matches names in any order, each searched word against a different word of the name', () => {
    expect(nameMatches(['smith', 'john'], ['john', 'smith'])).toBe(true);
    expect(nameMatches(['jon', 'smyth'], ['john', 'smith'])).toBe(true);
    expect(nameMatches(['john', 'john'], ['john', 'smith'])).toBe(false);
    expect(nameMatches(['ann', 'anne'], ['anne', 'ann'])).toBe(true);
    expect(nameMatches(['maria'], ['ana', 'maria', 'lopez'])).toBe(true);
    expect(nameMatches(['peter'], ['ana', 'maria'])).toBe(false);
  });
});

describe('incident number parts', () => {
  it('starts the key at each of its parts', () => {
    expect(incidentKeyParts('BPS-2026-001')).toEqual(['BPS-2026-001', '2026-001', '001']);
    expect(incidentKeyParts('CUS/2023/55')).toEqual(['CUS/2023/55', '2023/55', '55']);
    expect(incidentKeyParts('A.B C--D')).toEqual(['A.B C--D', 'B C--D', 'C--D', 'D']);
    expect(incidentKeyParts('X-')).toEqual(['X-']);
    expect(incidentKeyParts('7')).toEqual(['7']);
  });

  it('searches by the start of a number as its key without leading separators', () => {
    expect(incidentPrefix(' 2026-001 ')).toBe('2026-001');
    expect(incidentPrefix('-/2026')).toBe('2026');
    expect(incidentPrefix('---')).toBe('');
  });
});

describe('names in several parts', () => {
  it('joins the parts of a name written as one word', () => {
    expect(nameCompounds('Marie-Hélène Dubois')).toEqual(['mariehelene']);
    expect(nameCompounds("Seán O'Brien-Smith")).toEqual(['obriensmith']);
    expect(nameCompounds('John Smith')).toEqual([]);
    expect(nameCompounds(null)).toEqual([]);
  });

  it('matches a compound in place of its parts, and its parts in place of it, never both', () => {
    const words = ['marie', 'helene', 'dubois'];
    const compounds = ['mariehelene'];
    expect(nameMatches(['mariehelene', 'dubois'], words, compounds)).toBe(true);
    expect(nameMatches(['marie', 'helene', 'dubois'], words, compounds)).toBe(true);
    expect(nameMatches(['mariehelen', 'dubois'], words, compounds)).toBe(true); // one typo
    expect(nameMatches(['dubois', 'mariehelene'], words, compounds)).toBe(true);
    expect(nameMatches(['mariehelene', 'helene'], words, compounds)).toBe(false);
    expect(nameMatches(['mariehelene'], words, [])).toBe(false);
    // a compound that does not join consecutive words of the name is never used
    expect(nameMatches(['helenemarie'], words, ['helenemarie'])).toBe(false);
  });
});
