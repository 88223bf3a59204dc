/// <reference path="./types/jaro-winkler.d.ts" />
import packageJaroWinkler from 'jaro-winkler';
import { describe, expect, it } from 'vitest';
import { compareDobs, compareNames, jaroWinkler, jaroWinklerSurelyBelow } from './compare.ts';
import { type PreparedDate, parseDobDigits, prepareName } from './normalize.ts';
import { DOB_WEIGHTS } from './weights.ts';

/** A deterministic generator (mulberry32), so a failure names pairs that stay the same. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('jaroWinkler', () => {
  it('gives exactly what the npm package jaro-winkler gives, bit for bit', () => {
    const next = random(17);
    // Small alphabets make matches, transpositions and shared prefixes common; lengths reach the
    // scratch arrays' growth (over 64) and the empty string.
    const alphabets = ['ab', 'abcde', 'aeiourstn', 'abcdefghijklmnopqrstuvwxyz', 'aéöç漢字'];
    const word = (alphabet: string, max: number) => {
      const n = Math.floor(next() * (max + 1));
      let s = '';
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      return s;
    };
    const differences: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const alphabet = alphabets[i % alphabets.length]!;
      const max = i % 50 === 0 ? 150 : 12;
      const a = word(alphabet, max);
      // Half the pairs are a word and a slip of it (one letter changed, dropped or swapped).
      let b = word(alphabet, max);
      if (i % 2 === 0 && a.length > 1) {
        const at = Math.floor(next() * (a.length - 1));
        const slips = [
          a.slice(0, at) + a[at + 1] + a[at] + a.slice(at + 2),
          a.slice(0, at) + a.slice(at + 1),
          a.slice(0, at) + alphabet[0] + a.slice(at + 1),
        ];
        b = slips[i % 3]!;
      }
      const ours = jaroWinkler(a, b);
      const theirs = packageJaroWinkler(a, b);
      if (!Object.is(ours, theirs)) differences.push(`${a} / ${b}: ${ours} ≠ ${theirs}`);
    }
    expect(differences.slice(0, 10)).toEqual([]);
  });

  it('scores the textbook pairs', () => {
    expect(jaroWinkler('MARTHA', 'MARHTA')).toBeCloseTo(0.9611, 4);
    expect(jaroWinkler('DWAYNE', 'DUANE')).toBeCloseTo(0.84, 4);
    expect(jaroWinkler('DIXON', 'DICKSONX')).toBeCloseTo(0.8133, 4);
    expect(jaroWinkler('', 'A')).toBe(0);
    expect(jaroWinkler('SAME', 'SAME')).toBe(1);
    expect(jaroWinkler('ABC', 'XYZ')).toBe(0);
  });
});

describe('compareDobs', () => {
  const dob = (text: string): PreparedDate => {
    const date = parseDobDigits(text);
    if (!date) throw new Error(`${text} is no date of birth`);
    return date;
  };

  it.each([
    ['0998-09-05', '1998-09-05'],
    ['1998-00-03', '1998-10-03'],
    ['1998-00-03', '1998-01-03'],
    ['1998-05-00', '1998-05-20'],
    ['0205-03-04', '2005-03-04'],
  ])('finds one slip between %j (impossible) and %j', (a, b) => {
    expect(compareDobs(dob(a), dob(b))).toMatchObject({ level: 'slip', weight: DOB_WEIGHTS.slip });
    expect(compareDobs(dob(b), dob(a))).toMatchObject({ level: 'slip', weight: DOB_WEIGHTS.slip });
  });

  it('takes an impossible date that is no slip of the other as neither for nor against', () => {
    expect(compareDobs(dob('0998-09-05'), dob('1997-09-06'))).toMatchObject({ level: 'impossible', weight: 0 });
    expect(compareDobs(dob('1998-00-03'), dob('1987-11-03'))).toMatchObject({ level: 'impossible', weight: 0 });
  });

  it('counts the same mistyped date twice (a part out of range, one slip of a real date) as the same date', () => {
    expect(compareDobs(dob('1941-23-03'), dob('1941-23-03'))).toMatchObject({
      level: 'exact',
      weight: DOB_WEIGHTS.exact,
    });
    expect(compareDobs(dob('0998-09-05'), dob('0998-09-05'))).toMatchObject({ level: 'exact' });
  });

  it('takes two different impossible dates, or the same junk twice, as nothing', () => {
    expect(compareDobs(dob('1941-23-03'), dob('1941-03-32'))).toMatchObject({ level: 'impossible', weight: 0 });
    expect(compareDobs(dob('1941-23-03'), dob('1941-23-04'))).toMatchObject({ level: 'impossible', weight: 0 });
    // Month and day both wrong: no slip of any real date, so no copy of one either.
    expect(compareDobs(dob('1975-13-42'), dob('1975-13-42'))).toMatchObject({ level: 'impossible', weight: 0 });
    // Every part in range, only past the end of its month: as likely a system's invalid value.
    expect(compareDobs(dob('2024-02-30'), dob('2024-02-30'))).toMatchObject({ level: 'impossible', weight: 0 });
  });
});

describe('compareNames on a word written in two', () => {
  // The joined word's codes are looked up only once its spelling is close enough for the phonetic
  // test (compare.ts wordLevel): they must be the joined word's own, on either side.
  it('finds a joined word alike by sound, whichever name is split', () => {
    const levels = (a: string, b: string) =>
      compareNames(prepareName(a), prepareName(b)).pairs.map((p) => [p.a, p.b, p.level]);
    expect(levels('kate lin smith', 'caitlin smith')).toEqual([
      ['smith', 'smith', 'exact'],
      ['katelin', 'caitlin', 'phonetic'],
    ]);
    expect(levels('caitlin smith', 'kate lin smith')).toEqual([
      ['smith', 'smith', 'exact'],
      ['caitlin', 'katelin', 'phonetic'],
    ]);
    expect(levels('mary ann', 'marianne')).toEqual([['maryann', 'marianne', 'phonetic']]);
    // One letter apart: a typo, found before any codes are asked for.
    expect(levels('jon athan', 'jonathon')).toEqual([['jonathan', 'jonathon', 'typo']]);
  });
});

describe('jaroWinklerSurelyBelow', () => {
  it('says a pair is below a weight only when jaroWinkler gives less, and says so of most unrelated words', () => {
    const next = random(20261202);
    const word = (alphabet: string) => {
      const n = 1 + Math.floor(next() * 14);
      let w = '';
      for (let i = 0; i < n; i++) w += alphabet[Math.floor(next() * alphabet.length)];
      return w;
    };
    let below = 0;
    const tries = 200_000;
    for (let k = 0; k < tries; k++) {
      // Small alphabets share letters (near the bound), the whole one mostly does not.
      const alphabet = k % 3 === 0 ? 'abc' : k % 3 === 1 ? 'aeinrst' : 'abcdefghijklmnopqrstuvwxyz';
      const a = word(alphabet);
      const b = k % 7 === 0 ? [...a].reverse().join('') : word(alphabet);
      const floor = k % 2 === 0 ? 0.75 : 0.5 + next() * 0.5;
      if (jaroWinklerSurelyBelow(a, b, floor)) {
        below++;
        expect(jaroWinkler(a, b), `${a} / ${b} at ${floor}`).toBeLessThan(floor);
      }
    }
    expect(below).toBeGreaterThan(tries / 3);
    expect(jaroWinklerSurelyBelow('smith', 'okonkwo', 0.75)).toBe(true);
    expect(jaroWinklerSurelyBelow('katelin', 'caitlin', 0.75)).toBe(false);
    // Outside ASCII nothing is bounded.
    expect(jaroWinklerSurelyBelow('smïth', 'okonkwo', 0.75)).toBe(false);
  });
});
