/**
 * Held-out synthetic person sets for the record-link scorer, generated here (a seeded PRNG, name
 * lists written into this file, no file or network read): the scorer's weights and threshold were
 * set on FEBRL 1–3, so these check that its quality is not FEBRL's alone. The name lists are
 * German, English, Dutch, Spanish and Italian names written for this file, not taken from FEBRL.
 *
 * - `typos` (10,000 records, after RLdata10000 of the R RecordLinkage package): 9,000 people, 1,000
 *   of them written a second time with 1–3 errors — a typo (letter inserted, deleted, changed, two
 *   neighbours swapped) in the given name and/or the surname, and/or a corrupted date of birth (one
 *   digit mistyped, kept as written even when impossible, e.g. month 13 or day 42; two neighbouring
 *   digits swapped; day and month swapped; year, month or day replaced). About 3% of the people
 *   are twins of another: the same surname and date of birth, another given name (two people).
 * - `oneWord` (3,000 records, 1,000 duplicates): as `typos`, but about 40% of records lack the
 *   given name or the surname, including pairs with complementary parts (the given name only on one
 *   record, the surname only on the other: one person that no name comparison can link).
 * - `clusters` (about 1,500 records of 500 people, 1–7 records each): every record is its own
 *   corruption of the person's values (0–2 errors: the errors above, the given name and surname
 *   swapped between the fields, a missing name part, a missing date of birth); about 3% of the
 *   people are twins of another.
 * - `nicknames` (5,000 records, 1,000 duplicates): as `typos`, but 600 of the duplicates are of
 *   people whose given name has a short form or pet name (William → Bill, Margarete → Grete,
 *   Francisco → Paco, Giuseppe → Beppe: NICKNAMES), and 80% of those write it.
 * - `replaced` (5,000 records, 1,000 duplicates): a duplicate has a name word replaced by another
 *   — the surname (50%: a married or a maiden name) or the given name (30%: a second given name
 *   used) — with 0–1 errors besides; the other 20% carry the usual errors.
 * - `duplicates1` and `duplicates30` (10,000 records each): as `typos` with 1% and 30% of the
 *   records a duplicate (`typos` has 10%).
 *
 * dedupeHeldout scores a set as dedupeFebrl does a FEBRL file (link-csv without --right);
 * baselineRule is the plain rule to compare with.
 */

import { Random as BaseRandom } from '@nrad/infra';
import {
  type ClusterPair,
  candidatePairs,
  clusterRecords,
  DEFAULT_THRESHOLD,
  jaroWinkler,
  type MatchInput,
  type PreparedRecord,
  prepareRecord,
  type ScoreOptions,
  scoreCandidatePairs,
} from '@nrad/matching';
import type { ScoredPair } from './metrics.ts';

export interface HeldoutRecord extends MatchInput {
  readonly id: string;
  /** The person: records of one person share it. */
  readonly entity: string;
  /** '' when missing. */
  readonly givenName: string;
  /** '' when missing. */
  readonly surname: string;
  /** 'YYYY-MM-DD' as written, perhaps impossible ('1975-13-42'); '' when missing. */
  readonly suspectDob: string;
}

export type HeldoutKind = 'typos' | 'oneWord' | 'clusters' | 'nicknames' | 'replaced' | 'duplicates1' | 'duplicates30';
export const HELDOUT_KINDS: readonly HeldoutKind[] = [
  'typos',
  'oneWord',
  'clusters',
  'nicknames',
  'replaced',
  'duplicates1',
  'duplicates30',
];

// --- Name lists (written for this file; most common first is not implied: ranks are drawn per seed) ---

/**
 * A list written as "Origin: name, name, …; Origin: …" (names may hold spaces, apostrophes and
 * hyphens; the origin labels are for the reader).
 */
const names = (text: string): readonly string[] =>
  text
    .split(';')
    .flatMap((group) => group.replace(/^\s*\w+:/, '').split(','))
    .map((name) => name.replace(/\s+/g, ' ').trim())
    .filter((name) => name !== '');

const FEMALE_NAMES = names(`
  German: Anna, Maria, Sophie, Lena, Hannah, Katharina, Sabine, Ursula, Monika, Petra, Birgit, Claudia, Susanne,
    Heike, Gisela, Ingrid, Renate, Elke, Brigitte, Annegret, Hildegard, Margarete, Frieda, Greta, Lea, Johanna, Jutta,
    Dagmar, Gudrun, Silke;
  English: Emma, Laura, Sarah, Emily, Olivia, Charlotte, Jessica, Rebecca, Margaret, Elizabeth, Catherine, Victoria,
    Eleanor, Abigail, Megan, Bethany, Gemma, Chloe, Lucy, Harriet, Imogen, Joanne, Deborah, Patricia, Barbara,
    Dorothy, Helen, Sandra, Sharon, Pamela;
  Dutch: Noor, Fenna, Sanne, Femke, Anouk, Lotte, Maartje, Ingeborg, Willemijn, Marloes, Eline, Roos, Saskia,
    Wilhelmina, Geertruida, Hendrika, Marieke, Anneke;
  Spanish: Carmen, Lucía, Dolores, Pilar, Rocío, Inmaculada, Montserrat, Esperanza, Concepción, Remedios, Nuria,
    Ainhoa, Itziar, Marisol, Alba, Paloma, Mercedes, Amparo;
  Italian: Francesca, Giulia, Chiara, Alessandra, Federica, Valentina, Giovanna, Rosalia, Graziella, Antonella,
    Beatrice, Ludovica, Ilaria, Serena, Martina, Donatella, Assunta, Carmela;
`);

const MALE_NAMES = names(`
  German: Hans, Klaus, Jürgen, Wolfgang, Dieter, Günter, Horst, Manfred, Uwe, Bernd, Helmut, Gerhard, Rainer, Joachim,
    Matthias, Stefan, Andreas, Markus, Tobias, Florian, Lukas, Maximilian, Jonas, Niklas, Sebastian, Friedrich,
    Heinrich, Wilhelm, Detlef, Volker;
  English: James, John, Robert, William, David, Richard, Joseph, Charles, Christopher, Daniel, Matthew, Anthony,
    Steven, Andrew, Kenneth, Kevin, Brian, George, Edward, Ronald, Timothy, Jeffrey, Oliver, Harry, Jack, Alfie,
    Archie, Callum, Declan, Nigel;
  Dutch: Jan, Pieter, Johannes, Cornelis, Hendrik, Willem, Gerrit, Dirk, Bram, Sander, Jeroen, Maarten, Joost, Ruud,
    Thijs, Wouter, Sjoerd, Diederik;
  Spanish: José, Antonio, Manuel, Francisco, Javier, Jesús, Miguel, Alejandro, Rafael, Fernando, Sergio, Álvaro,
    Iñigo, Gonzalo, Ignacio, Rodrigo, Santiago, Joaquín;
  Italian: Giuseppe, Giovanni, Francesco, Alessandro, Lorenzo, Matteo, Riccardo, Stefano, Massimo, Luca, Salvatore,
    Vincenzo, Gianluca, Fabrizio, Emanuele, Pasquale, Raffaele, Ottavio;
`);

const SURNAMES = names(`
  German: Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Schäfer, Koch, Bauer,
    Richter, Klein, Wolf, Schröder, Neumann, Schwarz, Zimmermann, Braun, Krüger, Hartmann, Lange, Schmitt, Werner,
    Schmitz, Krause, Meier, Lehmann, Schulze, Maier, Köhler, Herrmann, König, Walter, Huber, Kaiser, Fuchs, Scholz,
    Möller, Weiß, Jung, Hahn, Schubert, Vogel, Keller, Günther, Berger, Winkler, Roth, Lorenz, Baumann, Franke,
    Albrecht, Schuster, Ludwig, Böhm, Kraus, Schumacher, Krämer, Vogt, Jäger, Sommer, Groß, Seidel, Brandt, Haas,
    Schreiber, Dietrich, Ziegler, Kuhn, Pohl, Engel, Horn, Busch, Bergmann, Voigt, Sauer, Pfeiffer;
  English: Smith, Jones, Williams, Taylor, Davies, Evans, Wilson, Johnson, Roberts, Robinson, Thompson, Wright,
    Walker, Edwards, Hughes, Green, Lewis, Harris, Clarke, Jackson, Turner, Cooper, Morris, Moore, Baker, Harrison,
    Morgan, Phillips, Watson, Parker, Bennett, Griffiths, Mitchell, Kelly, Carter, Richardson, Bailey, Collins,
    Marshall, Simpson, Ellis, Wilkinson, Foster, Chapman, Powell, Rogers, Mason, Campbell, Matthews, Holmes, Barnes,
    Knight, Lloyd, Butler, Russell, Barker, Stevens, Jenkins, Dixon, Pearson, Fletcher, Gibson, Howard, Andrews,
    Elliott, Reynolds, Saunders, O'Brien, Atkinson, Bradley, Spencer, Dawson, Burton, Whitehead, Hutchinson;
  Dutch: de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Janssen, Visser, Smit, Meijer, de Boer, Mulder,
    de Groot, Bos, Vos, Hendriks, van Leeuwen, Dekker, Brouwer, de Wit, Dijkstra, Smits, de Graaf, van der Meer,
    van der Linden, Kok, Jacobs, de Haan, Vermeulen, van den Heuvel, van der Veen, van den Broek, de Bruijn,
    van der Heijden, Schouten, van Beek, Willems, van Vliet, Hoekstra, Maas, Verhoeven, Koster, van Dam, Prins, Blom,
    Huisman, Kuipers, Veenstra, Scholten, Groen, Timmermans, Postma, Vink, Wouters, Boersma, Zwart, Hofstede,
    Terpstra;
  Spanish: García, Rodríguez, González, Fernández, López, Martínez, Sánchez, Pérez, Gómez, Jiménez, Ruiz, Hernández,
    Díaz, Moreno, Muñoz, Álvarez, Romero, Alonso, Gutiérrez, Navarro, Torres, Domínguez, Vázquez, Ramos, Ramírez,
    Serrano, Blanco, Molina, Morales, Suárez, Ortega, Delgado, Castro, Ortiz, Rubio, Marín, Sanz, Núñez, Iglesias,
    Medina, Garrido, Cortés, Castillo, Lozano, Guerrero, Cano, Prieto, Méndez, Calvo, Gallego, Vidal, Márquez,
    Herrera, Peña, Cabrera, Fuentes, Carrasco, Caballero, Nieto, Aguilar, Pascual, Ibáñez, Ferrer, Durán, Benítez,
    de la Fuente, García-López;
  Italian: Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Gallo, Conti, De Luca,
    Mancini, Costa, Giordano, Rizzo, Lombardi, Moretti, Barbieri, Fontana, Santoro, Mariani, Rinaldi, Caruso, Ferrara,
    Galli, Martinelli, Vitale, Gentile, Coppola, De Santis, D'Angelo, Marchetti, Parisi, Ferraro, Fabbri, Marini,
    Grasso, Valentini, Messina, Pellegrini, Palumbo, Farina, Cattaneo, Morelli, Amato, Silvestri, Mazza, Testa,
    Carbone, Giuliani, Benedetti, Barone, Caputo, Montanari, Palmieri, Bernardi, Esposti, Quaranta;
`);

/** The embedded name lists (for tests): female and male given names, surnames. */
export const HELDOUT_NAMES = { female: FEMALE_NAMES, male: MALE_NAMES, surnames: SURNAMES } as const;

// --- Seeded randomness ---

/** 32-bit FNV-1a of a text (the seed of one kind's stream). */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The project's seeded PRNG (infra's mulberry32) with the draws the generator needs besides. */
class Random extends BaseRandom {
  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An index drawn with the given (unnormalized) weights. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((s, w) => s + w, 0);
    let x = this.next() * total;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k]!;
      if (x < 0) return k;
    }
    return weights.length - 1;
  }
  shuffle<T>(list: T[]): T[] {
    for (let i = list.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
    return list;
  }
  /** `count` distinct items of `list`, each drawn with its weight. */
  distinct<T>(list: readonly T[], weights: readonly number[], count: number): T[] {
    const w = [...weights];
    const out: T[] = [];
    for (let n = 0; n < count && w.some((x) => x > 0); n++) {
      const k = this.weighted(w);
      out.push(list[k]!);
      w[k] = 0;
    }
    return out;
  }
}

/**
 * Draws names with a Zipf-like skew: the name at rank r (ranks shuffled per seed) weighs 1/(r + a),
 * so the first few are common and the long tail rare. With a = 8 for the given names of each sex
 * and a = 25 for surnames, the commonest given name is on about 2.3% of records and the commonest
 * surname on about 1.5% (about what the commonest are in a national population; a smaller `a`
 * makes chance agreements far more frequent than in real data).
 */
class ZipfNames {
  private readonly names: readonly string[];
  private readonly cumulative: Float64Array;
  constructor(random: Random, names: readonly string[], offset: number) {
    this.names = random.shuffle([...names]);
    this.cumulative = new Float64Array(names.length);
    let sum = 0;
    for (let r = 0; r < names.length; r++) {
      sum += 1 / (r + offset);
      this.cumulative[r] = sum;
    }
  }
  draw(random: Random): string {
    const x = random.next() * this.cumulative[this.cumulative.length - 1]!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.names[lo]!;
  }
}

// --- People and their corruptions ---

interface Person {
  readonly female: boolean;
  readonly givenName: string;
  readonly surname: string;
  /** YYYYMMDD. */
  readonly dob: string;
}

/** Draws people: names with a Zipf skew, dates of birth uniform over 1920–2005. */
class People {
  private readonly female: ZipfNames;
  private readonly male: ZipfNames;
  private readonly surnames: ZipfNames;
  constructor(private readonly random: Random) {
    this.female = new ZipfNames(random, FEMALE_NAMES, 8);
    this.male = new ZipfNames(random, MALE_NAMES, 8);
    this.surnames = new ZipfNames(random, SURNAMES, 25);
  }
  givenName(female: boolean): string {
    return (female ? this.female : this.male).draw(this.random);
  }
  surname(): string {
    return this.surnames.draw(this.random);
  }
  person(): Person {
    const female = this.random.chance(0.5);
    return { female, givenName: this.givenName(female), surname: this.surname(), dob: this.dob() };
  }
  /** A twin (or sibling of the same date of birth) of `other`: same surname and date, another given name. */
  twinOf(other: Person): Person {
    const female = this.random.chance(0.5);
    let givenName = this.givenName(female);
    while (givenName.toLowerCase() === other.givenName.toLowerCase()) givenName = this.givenName(female);
    return { female, givenName, surname: other.surname, dob: other.dob };
  }
  private dob(): string {
    const start = Date.UTC(1920, 0, 1);
    const days = Math.round((Date.UTC(2005, 11, 31) - start) / 86_400_000);
    for (;;) {
      const digits = new Date(start + this.random.below(days + 1) * 86_400_000).toISOString().slice(0, 10);
      const dob = digits.replaceAll('-', '');
      // Dates systems use for "unknown" (1970-01-01, 2000-01-01) would read as missing: not drawn.
      if (dob !== '19700101' && dob !== '20000101') return dob;
    }
  }
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** A letter without its accent, lower-cased (ü → u). */
const plain = (ch: string) => ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const isLetter = (ch: string) => /\p{L}/u.test(ch);

/**
 * One typo in a name: a letter inserted, deleted, changed, or two neighbouring letters swapped, in
 * one of its words (chosen by length); a capital first letter stays capital.
 */
function typo(random: Random, name: string): string {
  const chars = Array.from(name);
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < chars.length; ) {
    if (!isLetter(chars[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < chars.length && isLetter(chars[j]!)) j++;
    runs.push([i, j]);
    i = j;
  }
  if (runs.length === 0) return name;
  const [start, end] = runs[random.weighted(runs.map(([s, e]) => e - s))]!;
  const capital = chars[start] !== chars[start]!.toLowerCase();
  const word = chars.slice(start, end).map((c) => c.toLowerCase());
  const letter = (not?: string) => {
    for (;;) {
      const c = random.pick(Array.from(LETTERS));
      if (c !== not) return c;
    }
  };
  const ops = ['insert', 'delete', 'substitute', 'transpose'] as const;
  let op = random.pick(ops);
  const swappable = word.slice(0, -1).flatMap((c, i) => (plain(c) !== plain(word[i + 1]!) ? [i] : []));
  if (op === 'delete' && word.length < 3) op = 'substitute';
  if (op === 'transpose' && swappable.length === 0) op = 'substitute';
  if (op === 'insert') word.splice(random.below(word.length + 1), 0, letter());
  else if (op === 'delete') word.splice(random.below(word.length), 1);
  else if (op === 'substitute') {
    const at = random.below(word.length);
    word[at] = letter(plain(word[at]!));
  } else {
    const at = random.pick(swappable);
    [word[at], word[at + 1]] = [word[at + 1]!, word[at]!];
  }
  if (capital) word[0] = word[0]!.toUpperCase();
  return [...chars.slice(0, start), ...word, ...chars.slice(end)].join('');
}

/** The kinds of date-of-birth corruption. */
type DobError = 'digit' | 'neighbours' | 'dayMonth' | 'part';

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * A date of birth (YYYYMMDD) corrupted once: one digit mistyped (the result may be no date: month
 * 13, day 42 — kept as written), two neighbouring digits swapped, day and month swapped, or the
 * year, the month or the day replaced by another value.
 */
function corruptDob(random: Random, dob: string): string {
  const kinds: DobError[] = ['digit', 'neighbours', 'dayMonth', 'part'];
  let kind = kinds[random.weighted([0.35, 0.2, 0.15, 0.3])]!;
  const d = Array.from(dob);
  if (kind === 'dayMonth' && dob.slice(4, 6) === dob.slice(6, 8)) kind = 'digit';
  if (kind === 'digit') {
    const at = random.below(8);
    let digit = String(random.below(10));
    while (digit === d[at]) digit = String(random.below(10));
    d[at] = digit;
    return d.join('');
  }
  if (kind === 'neighbours') {
    const positions = [0, 1, 2, 3, 4, 5, 6].filter((i) => d[i] !== d[i + 1]);
    const at = random.pick(positions);
    [d[at], d[at + 1]] = [d[at + 1]!, d[at]!];
    return d.join('');
  }
  const year = Number(dob.slice(0, 4));
  const month = Number(dob.slice(4, 6));
  const day = Number(dob.slice(6, 8));
  const pad = (n: number) => String(n).padStart(2, '0');
  if (kind === 'dayMonth') return `${year}${pad(day)}${pad(month)}`;
  const part = random.below(3);
  if (part === 0) {
    let other = 1920 + random.below(86);
    while (other === year) other = 1920 + random.below(86);
    return `${other}${pad(month)}${pad(day)}`;
  }
  if (part === 1) {
    let other = 1 + random.below(12);
    while (other === month || day > daysIn(year, other)) other = 1 + random.below(12);
    return `${year}${pad(other)}${pad(day)}`;
  }
  let other = 1 + random.below(daysIn(year, month));
  while (other === day) other = 1 + random.below(daysIn(year, month));
  return `${year}${pad(month)}${pad(other)}`;
}

/** YYYYMMDD as the records write it: 'YYYY-MM-DD' ('' stays ''). */
const written = (digits: string) => (digits ? `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}` : '');

/** A record's values while it is made: names as written, DOB digits ('' when missing). */
interface Values {
  givenName: string;
  surname: string;
  dob: string;
}

/** The errors one record of a person may carry. */
type ErrorKind = 'given' | 'surname' | 'dob' | 'swap' | 'missingName' | 'missingDob';

/** Applies the errors (typos and date first, then the swap of the name fields, then what is left out). */
function corrupt(random: Random, person: Person, errors: readonly ErrorKind[]): Values {
  const v: Values = { givenName: person.givenName, surname: person.surname, dob: person.dob };
  if (errors.includes('given') && v.givenName) v.givenName = typo(random, v.givenName);
  if (errors.includes('surname') && v.surname) v.surname = typo(random, v.surname);
  if (errors.includes('dob') && v.dob) v.dob = corruptDob(random, v.dob);
  if (errors.includes('swap')) [v.givenName, v.surname] = [v.surname, v.givenName];
  if (errors.includes('missingName')) {
    if (random.chance(0.5)) v.givenName = '';
    else v.surname = '';
  }
  if (errors.includes('missingDob')) v.dob = '';
  return v;
}

/** How many errors a duplicate carries (1–3, mostly 1–2), and which: each at most once. */
function duplicateErrors(random: Random, allowed: readonly ErrorKind[], counts: readonly number[]): ErrorKind[] {
  const count = random.weighted(counts);
  return random.distinct(
    allowed,
    allowed.map(() => 1),
    count,
  );
}

type Part = 'both' | 'given' | 'surname';

/** The record of a person with only one name part kept (or both). */
function keepPart(v: Values, part: Part): Values {
  if (part === 'given') return { ...v, surname: '' };
  if (part === 'surname') return { ...v, givenName: '' };
  return v;
}

interface Draft {
  readonly entity: number;
  readonly tag: string;
  readonly values: Values;
}

function finish(random: Random, prefix: string, drafts: Draft[]): HeldoutRecord[] {
  return random.shuffle(drafts).map((d) => ({
    id: `${prefix}${d.entity}-${d.tag}`,
    entity: `${prefix}${d.entity}`,
    givenName: d.values.givenName,
    surname: d.values.surname,
    suspectDob: written(d.values.dob),
  }));
}

/** `count` people, `twinShare` of them twins of an earlier non-twin one. */
function population(random: Random, people: People, count: number, twinShare: number): Person[] {
  const list: Person[] = [];
  const twins = Math.round(count * twinShare);
  for (let k = 0; k < count - twins; k++) list.push(people.person());
  const singles = list.length;
  for (let k = 0; k < twins; k++) list.push(people.twinOf(list[random.below(singles)]!));
  return random.shuffle(list);
}

const TWIN_SHARE = 0.03;
const NAME_AND_DOB_ERRORS: readonly ErrorKind[] = ['given', 'surname', 'dob'];
/** Duplicates' error counts: weights of 0, 1, 2 and 3 errors. */
const DUPLICATE_ERROR_COUNTS = [0, 0.55, 0.35, 0.1];

/** A person's values as written without error. */
const truthOf = (p: Person): Values => ({ givenName: p.givenName, surname: p.surname, dob: p.dob });

/**
 * `records` records of which `duplicateShare` are a second record of someone (1–3 errors: a typo
 * in a name, a corrupted date of birth), the rest one record each; ids `<prefix><person>-org|dup`.
 */
function typosAt(random: Random, records: number, duplicateShare: number, prefix: string): HeldoutRecord[] {
  const people = new People(random);
  const duplicates = Math.round(records * duplicateShare);
  const persons = population(random, people, records - duplicates, TWIN_SHARE);
  const drafts: Draft[] = persons.map((p, k) => ({ entity: k, tag: 'org', values: truthOf(p) }));
  for (const k of random.shuffle(persons.map((_, k) => k)).slice(0, duplicates)) {
    const errors = duplicateErrors(random, NAME_AND_DOB_ERRORS, DUPLICATE_ERROR_COUNTS);
    drafts.push({ entity: k, tag: 'dup', values: corrupt(random, persons[k]!, errors) });
  }
  return finish(random, prefix, drafts);
}

const typos = (random: Random) => typosAt(random, 10_000, 0.1, 't');
const duplicates1 = (random: Random) => typosAt(random, 10_000, 0.01, 'd');
const duplicates30 = (random: Random) => typosAt(random, 10_000, 0.3, 'D');

/**
 * The name parts kept on an original and its duplicate: both on both (45%); both, then one (20%);
 * one, then both (10%); the same one on both (15%); one on each, complementary (10%). So 40% of
 * these records lack a part, as 40% of the people written once do.
 */
const PAIR_PATTERNS: ReadonlyArray<readonly [weight: number, original: 'both' | 'one', duplicate: string]> = [
  [0.45, 'both', 'both'],
  [0.2, 'both', 'one'],
  [0.1, 'one', 'both'],
  [0.15, 'one', 'same'],
  [0.1, 'one', 'other'],
];

function oneWord(random: Random): HeldoutRecord[] {
  const people = new People(random);
  const persons = population(random, people, 2000, TWIN_SHARE);
  const onePart = (): Part => (random.chance(0.5) ? 'given' : 'surname');
  const drafts: Draft[] = [];
  const duplicated = new Set(random.shuffle(persons.map((_, k) => k)).slice(0, 1000));
  persons.forEach((p, k) => {
    const truth: Values = { givenName: p.givenName, surname: p.surname, dob: p.dob };
    if (!duplicated.has(k)) {
      drafts.push({ entity: k, tag: 'org', values: keepPart(truth, random.chance(0.4) ? onePart() : 'both') });
      return;
    }
    const [, original, duplicate] = PAIR_PATTERNS[random.weighted(PAIR_PATTERNS.map(([w]) => w))]!;
    const orgPart: Part = original === 'both' ? 'both' : onePart();
    const dupPart: Part =
      duplicate === 'both'
        ? 'both'
        : duplicate === 'one'
          ? onePart()
          : duplicate === 'same'
            ? orgPart
            : orgPart === 'given'
              ? 'surname'
              : 'given';
    drafts.push({ entity: k, tag: 'org', values: keepPart(truth, orgPart) });
    // A duplicate that lost a name part already differs: it carries 0–2 further errors.
    const counts = dupPart === 'both' ? DUPLICATE_ERROR_COUNTS : [0.35, 0.45, 0.2];
    const allowed = NAME_AND_DOB_ERRORS.filter(
      (e) => !(e === 'given' && dupPart === 'surname') && !(e === 'surname' && dupPart === 'given'),
    );
    const errors = duplicateErrors(random, allowed, counts);
    drafts.push({ entity: k, tag: 'dup', values: keepPart(corrupt(random, p, errors), dupPart) });
  });
  return finish(random, 'w', drafts);
}

// --- Nicknames, replaced name words, duplicate rates ---

/**
 * Short forms and pet names of given names in the lists above, as a record might carry them (the
 * common ones of each language; written for this file). A duplicate of `nicknames` writes one.
 */
const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  // English
  William: ['Bill', 'Will', 'Billy'],
  Robert: ['Bob', 'Rob', 'Bobby'],
  Richard: ['Dick', 'Rick', 'Richie'],
  James: ['Jim', 'Jimmy', 'Jamie'],
  John: ['Jack', 'Johnny'],
  Joseph: ['Joe', 'Joey'],
  Charles: ['Charlie', 'Chuck'],
  Christopher: ['Chris', 'Kit'],
  Daniel: ['Dan', 'Danny'],
  Matthew: ['Matt'],
  Anthony: ['Tony'],
  Steven: ['Steve'],
  Andrew: ['Andy', 'Drew'],
  Kenneth: ['Ken', 'Kenny'],
  Edward: ['Ed', 'Ted', 'Eddie'],
  Ronald: ['Ron', 'Ronnie'],
  Timothy: ['Tim'],
  Jeffrey: ['Jeff'],
  David: ['Dave'],
  Margaret: ['Maggie', 'Peggy', 'Meg'],
  Elizabeth: ['Liz', 'Beth', 'Betty'],
  Catherine: ['Kate', 'Cathy'],
  Victoria: ['Vicky'],
  Rebecca: ['Becky'],
  Jessica: ['Jess'],
  Abigail: ['Abby'],
  Patricia: ['Pat', 'Patty', 'Trish'],
  Barbara: ['Barb'],
  Dorothy: ['Dot', 'Dottie'],
  Deborah: ['Debbie'],
  Pamela: ['Pam'],
  Eleanor: ['Ellie', 'Nell'],
  Harriet: ['Hattie'],
  Charlotte: ['Lottie'],
  // German
  Johannes: ['Hans', 'Jan'],
  Friedrich: ['Fritz'],
  Wilhelm: ['Willi'],
  Heinrich: ['Heinz'],
  Katharina: ['Käthe', 'Kathi'],
  Margarete: ['Grete'],
  Maximilian: ['Max'],
  Sebastian: ['Basti'],
  // Dutch
  Cornelis: ['Kees'],
  Hendrik: ['Henk'],
  Willem: ['Wim'],
  Wilhelmina: ['Mien'],
  Geertruida: ['Truus'],
  Hendrika: ['Riek'],
  // Spanish
  José: ['Pepe'],
  Francisco: ['Paco', 'Pancho'],
  Manuel: ['Manolo'],
  Concepción: ['Concha'],
  Dolores: ['Lola'],
  Jesús: ['Chucho'],
  Ignacio: ['Nacho'],
  // Italian
  Giuseppe: ['Beppe', 'Peppe'],
  Giovanni: ['Gianni'],
  Francesco: ['Franco'],
  Salvatore: ['Totò'],
  Vincenzo: ['Enzo'],
  Alessandro: ['Sandro'],
  Antonella: ['Nella'],
};

/**
 * 4,000 people, 1,000 of them written twice: 600 of those whose given name has a short form
 * (NICKNAMES) and 400 others. A duplicate of someone with a short form writes it (80%) with 0–2
 * errors in the surname or the date of birth besides; any other duplicate carries the usual 1–3
 * errors (as `typos`).
 */
function nicknames(random: Random): HeldoutRecord[] {
  const people = new People(random);
  const persons = population(random, people, 4000, TWIN_SHARE);
  const drafts: Draft[] = persons.map((p, k) => ({ entity: k, tag: 'org', values: truthOf(p) }));
  const order = random.shuffle(persons.map((_, k) => k));
  const named = order.filter((k) => NICKNAMES[persons[k]!.givenName] !== undefined);
  const chosen = new Set(named.slice(0, 600));
  for (const k of order) if (chosen.size < 1000) chosen.add(k);
  for (const k of chosen) {
    const p = persons[k]!;
    const short = NICKNAMES[p.givenName];
    if (short && random.chance(0.8)) {
      // The nickname, and 0–2 errors in the surname or the date of birth besides.
      const errors = duplicateErrors(random, ['surname', 'dob'], [0.6, 0.3, 0.1]);
      const values = corrupt(random, p, errors);
      drafts.push({ entity: k, tag: 'dup', values: { ...values, givenName: random.pick(short) } });
    } else {
      const errors = duplicateErrors(random, NAME_AND_DOB_ERRORS, DUPLICATE_ERROR_COUNTS);
      drafts.push({ entity: k, tag: 'dup', values: corrupt(random, p, errors) });
    }
  }
  return finish(random, 'n', drafts);
}

/**
 * Which name word a duplicate of `replaced` replaces: the surname (a married or a maiden name),
 * the given name (a second given name used), or none (the usual errors only).
 */
const REPLACED_WORDS = [0.5, 0.3, 0.2];

function replaced(random: Random): HeldoutRecord[] {
  const people = new People(random);
  const persons = population(random, people, 4000, TWIN_SHARE);
  const drafts: Draft[] = persons.map((p, k) => ({ entity: k, tag: 'org', values: truthOf(p) }));
  for (const k of random.shuffle(persons.map((_, k) => k)).slice(0, 1000)) {
    const p = persons[k]!;
    const which = random.weighted(REPLACED_WORDS);
    if (which === 2) {
      const errors = duplicateErrors(random, NAME_AND_DOB_ERRORS, DUPLICATE_ERROR_COUNTS);
      drafts.push({ entity: k, tag: 'dup', values: corrupt(random, p, errors) });
      continue;
    }
    // The replacement, and 0–1 errors in the other name word or the date of birth besides.
    const other: ErrorKind = which === 0 ? 'given' : 'surname';
    const values = corrupt(random, p, duplicateErrors(random, [other, 'dob'], [0.6, 0.4]));
    const another = (current: string, draw: () => string) => {
      let word = draw();
      while (word.toLowerCase() === current.toLowerCase()) word = draw();
      return word;
    };
    if (which === 0) values.surname = another(p.surname, () => people.surname());
    else values.givenName = another(p.givenName, () => people.givenName(p.female));
    drafts.push({ entity: k, tag: 'dup', values });
  }
  return finish(random, 'r', drafts);
}

/** Weights of 1…7 records per person. */
const CLUSTER_SIZES = [0.28, 0.24, 0.16, 0.11, 0.09, 0.06, 0.06];
const CLUSTER_ERRORS: readonly ErrorKind[] = ['given', 'surname', 'dob', 'swap', 'missingName', 'missingDob'];
const CLUSTER_ERROR_WEIGHTS = [0.22, 0.22, 0.3, 0.08, 0.1, 0.08];

function clusters(random: Random): HeldoutRecord[] {
  const people = new People(random);
  const persons = population(random, people, 500, TWIN_SHARE);
  const drafts: Draft[] = [];
  persons.forEach((p, k) => {
    // The first person has the largest group, so every seed has one of 7.
    const size = k === 0 ? 7 : 1 + random.weighted(CLUSTER_SIZES);
    for (let r = 0; r < size; r++) {
      const errors = random.distinct(CLUSTER_ERRORS, CLUSTER_ERROR_WEIGHTS, random.weighted([0.3, 0.45, 0.25]));
      drafts.push({ entity: k, tag: String(r), values: corrupt(random, p, errors) });
    }
  });
  return finish(random, 'c', drafts);
}

const GENERATORS: Record<HeldoutKind, (random: Random) => HeldoutRecord[]> = {
  typos,
  oneWord,
  clusters,
  nicknames,
  replaced,
  duplicates1,
  duplicates30,
};

/** What largeClusters makes: how many records, the largest group, the seed. */
export interface LargeClustersOptions {
  readonly records: number;
  readonly largest: number;
  readonly seed?: number;
}

/**
 * A set for timing link-csv at scale (issue 36: 50,000 records in groups of up to 20): people with
 * 1 to `largest` records each, the group sizes drawn with weights 1/size^1.5 (most people once or
 * twice, some many times; the first person has the largest group), each record its own corruption
 * as in `clusters`, names from the embedded lists with their skew (so common names repeat, as on a
 * small island), about 3% twins. Exactly `records` records; ids `L<person>-<k>`.
 */
export function largeClusters(options: LargeClustersOptions): HeldoutRecord[] {
  const { records, largest } = options;
  const random = new Random(hash32(`heldout:largeClusters:${options.seed ?? 1}`));
  const people = new People(random);
  const weights = Array.from({ length: largest }, (_, k) => (k + 1) ** -1.5);
  const sizes: number[] = [];
  for (let held = 0; held < records; ) {
    const size = Math.min(sizes.length === 0 ? largest : 1 + random.weighted(weights), records - held);
    sizes.push(size);
    held += size;
  }
  const persons = population(random, people, sizes.length, TWIN_SHARE);
  const drafts: Draft[] = [];
  persons.forEach((p, k) => {
    for (let r = 0; r < sizes[k]!; r++) {
      const errors = random.distinct(CLUSTER_ERRORS, CLUSTER_ERROR_WEIGHTS, random.weighted([0.3, 0.45, 0.25]));
      drafts.push({ entity: k, tag: String(r), values: corrupt(random, p, errors) });
    }
  });
  return finish(random, 'L', drafts);
}

/** A held-out set: the same kind and seed always give the same records, in the same order. */
export function generateHeldout(kind: HeldoutKind, seed = 1): HeldoutRecord[] {
  return GENERATORS[kind](new Random(hash32(`heldout:${kind}:${seed}`)));
}

// --- Evaluation ---

/** How many pairs of records belong to one person: Σ n(n−1)/2 over the people. */
export function truePairCount(records: readonly { readonly entity: string }[]): number {
  const sizes = new Map<string, number>();
  for (const r of records) sizes.set(r.entity, (sizes.get(r.entity) ?? 0) + 1);
  let pairs = 0;
  for (const n of sizes.values()) pairs += (n * (n - 1)) / 2;
  return pairs;
}

export interface PairQuality {
  /** Pairs declared the same person. */
  readonly links: number;
  readonly truePositives: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

export function pairQuality(links: number, truePositives: number, truePairs: number): PairQuality {
  const precision = links === 0 ? 1 : truePositives / links;
  const recall = truePairs === 0 ? 1 : truePositives / truePairs;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { links, truePositives, precision, recall, f1 };
}

/**
 * Pairwise quality of a grouping (group number per record): the pairs within each group against
 * the pairs of records of one person.
 */
export function groupingQuality(records: readonly HeldoutRecord[], groups: readonly number[]): PairQuality {
  const byGroup = new Map<number, Map<string, number>>();
  groups.forEach((g, k) => {
    const entities = byGroup.get(g) ?? new Map<string, number>();
    const entity = records[k]!.entity;
    entities.set(entity, (entities.get(entity) ?? 0) + 1);
    byGroup.set(g, entities);
  });
  let links = 0;
  let truePositives = 0;
  for (const entities of byGroup.values()) {
    let size = 0;
    for (const n of entities.values()) {
      size += n;
      truePositives += (n * (n - 1)) / 2;
    }
    links += (size * (size - 1)) / 2;
  }
  return pairQuality(links, truePositives, truePairCount(records));
}

export interface HeldoutDedupe {
  readonly records: number;
  readonly truePairs: number;
  /** The candidate pairs of blocking, as indices into the records (parallel to `scored`). */
  readonly pairs: ReadonlyArray<readonly [number, number]>;
  readonly scored: ScoredPair[];
  /** Whether each pair was explained by other matches (matching/partners.ts), parallel to `scored`. */
  readonly explained: readonly boolean[];
  /** The prepared records and the options they were scored with (to explain a pair again). */
  readonly prepared: readonly PreparedRecord[];
  readonly scoreOptions: ScoreOptions;
  /** With `cluster`: the pairs within the groups of clusterRecords at DEFAULT_THRESHOLD. */
  readonly clusterQuality?: PairQuality;
}

/**
 * A held-out set deduplicated as dedupeFebrl does a FEBRL file (and link-csv without --right):
 * blocking, then each candidate pair scored as link-csv scores (link-csv/score.ts).
 * With `cluster`, also the quality of the groups link-csv --cluster would make; with `strictNames`,
 * as link-csv --strict-names.
 */
export function dedupeHeldout(
  raw: readonly HeldoutRecord[],
  options: { cluster?: boolean; strictNames?: boolean } = {},
): HeldoutDedupe {
  const records = raw.map((r) => prepareRecord(r));
  const truePairs = truePairCount(raw);
  const { pairs } = candidatePairs(records);
  const {
    options: scoreOptions,
    confidences,
    explained,
  } = scoreCandidatePairs(records, pairs, undefined, {
    strictNames: options.strictNames === true,
  });
  const scored: ScoredPair[] = pairs.map(([i, j], k) => ({
    confidence: confidences[k]!,
    isMatch: raw[i]!.entity === raw[j]!.entity,
  }));
  const result = { records: records.length, truePairs, pairs, scored, explained, prepared: records, scoreOptions };
  if (!options.cluster) return result;
  const linked: ClusterPair[] = pairs.map(([i, j], k) => ({ i, j, confidence: scored[k]!.confidence }));
  const groups = clusterRecords(records.length, linked, { threshold: DEFAULT_THRESHOLD });
  return { ...result, clusterQuality: groupingQuality(raw, groups) };
}

/** Jaro–Winkler of two name parts, lower-cased and trimmed; a missing part on either side gives 0. */
function nameSimilarity(a: string, b: string): number {
  const x = a.trim().toLowerCase();
  const y = b.trim().toLowerCase();
  return x && y ? jaroWinkler(x, y) : 0;
}

/** The 8 digits of a written date of birth, or undefined. */
function dobDigits(value: string): string | undefined {
  const digits = value.replace(/\D/g, '');
  return digits.length === 8 ? digits : undefined;
}

/**
 * Whether two dates of birth (8 digits, YYYYMMDD) are equal or one slip apart: one digit differs,
 * two neighbouring digits are swapped, or day and month are swapped.
 */
export function dobsWithinOneSlip(a: string, b: string): boolean {
  if (a === b) return true;
  const diff: number[] = [];
  for (let i = 0; i < 8; i++) if (a[i] !== b[i]) diff.push(i);
  if (diff.length === 1) return true;
  if (diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!]) {
    return true;
  }
  return a.slice(0, 4) === b.slice(0, 4) && a.slice(4, 6) === b.slice(6, 8) && a.slice(6, 8) === b.slice(4, 6);
}

/** Whether the plain rule declares two records the same person. */
export function baselineLinks(a: HeldoutRecord, b: HeldoutRecord): boolean {
  if (nameSimilarity(a.givenName, b.givenName) < 0.9 || nameSimilarity(a.surname, b.surname) < 0.9) return false;
  const x = dobDigits(a.suspectDob);
  const y = dobDigits(b.suspectDob);
  return x !== undefined && y !== undefined && dobsWithinOneSlip(x, y);
}

/**
 * The plain rule to compare the scorer with, over the same candidate pairs: Jaro–Winkler ≥ 0.9 on
 * the given names and on the surnames (a missing part fails) and the dates of birth equal or one
 * slip apart (a digit, two neighbouring digits swapped, day and month swapped).
 */
export function baselineRule(raw: readonly HeldoutRecord[]): PairQuality {
  const records = raw.map((r) => prepareRecord(r));
  const { pairs } = candidatePairs(records);
  let links = 0;
  let truePositives = 0;
  for (const [i, j] of pairs) {
    if (!baselineLinks(raw[i]!, raw[j]!)) continue;
    links++;
    if (raw[i]!.entity === raw[j]!.entity) truePositives++;
  }
  return pairQuality(links, truePositives, truePairCount(raw));
}
