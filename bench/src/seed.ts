import {
  type Agency,
  COUNTRIES,
  CRIME_SUBTYPES,
  CRIME_TYPES,
  DEFAULT_COUNTRY,
  DEFAULT_SOURCE_OPTIONS,
  NAMLC_ORGANIZATIONS,
  NAMLC_REFERRAL_SOURCE,
  type RecordInput,
  RecordInputSchema,
} from '@nrad/contracts';
import { Random } from '@nrad/infra';

export { Random };

// Names as officers type them, from several of the communities an offshore financial centre
// meets; some with accents, which the service folds for search.
export const FIRST_NAMES = (
  'James, Mary, John, Patricia, Robert, Jennifer, Michael, Linda, David, Elizabeth, William, Barbara, ' +
  'Richard, Susan, Joseph, Jessica, Thomas, Sarah, Charles, Karen, Daniel, Nancy, Matthew, Lisa, ' +
  'Anthony, Betty, Mark, Sandra, Steven, Ashley, Kevin, Dorothy, Brian, Kimberly, George, Emily, ' +
  'Edward, Donna, Ronald, Michelle, Tyrone, Shantelle, Delroy, Keisha, Jermaine, Tanisha, Desmond, ' +
  'Latoya, Winston, Marcia, José, María, Sofía, Andrés, Lucía, Martín, Inés, Raúl, Ramón, Álvaro, ' +
  'João, Conceição, Gonçalo, Mário, Tomás, Luísa, Sebastião, Vítor, Inês, Antônio, François, Hélène, ' +
  'Jérôme, Zoë, Chloé, Søren, Björn, Åsa, Jürgen, Lars, Wei, Li, Hiroshi, Yuki, Priya, Rajesh, ' +
  'Anjali, Mohammed, Fatima, Aleksandr, Olga, Dmitri, Natalia, Kwame, Amara, Chidi, Ngozi, Siobhán, ' +
  'Seán, Niamh'
).split(', ');
export const LAST_NAMES = (
  'Smith, Johnson, Williams, Brown, Jones, Miller, Davis, Wilson, Anderson, Taylor, Thomas, Moore, ' +
  'Jackson, Martin, Thompson, White, Harris, Clarke, Lewis, Robinson, Walker, Young, Allen, King, ' +
  'Wright, Scott, Hill, Green, Adams, Baker, Outerbridge, Trott, Tucker, Smith-Simmons, Darrell, ' +
  'Furbert, Butterfield, Zuill, Wainwright, Burgess, DeSilva, Pitcher, Swan, Astwood, Bean, Raynor, ' +
  'Symonds, Minors, Richardson, Dill, García, Rodríguez, Martínez, Hernández, López, González, Pérez, ' +
  'Sánchez, Ramírez, Jiménez, Gonçalves, Conceição, Araújo, Simões, Magalhães, Patrício, Estêvão, ' +
  'Brandão, Leitão, Câmara, Lefèvre, Béranger, Dubois, Müller, Schröder, Østergaard, Sjöberg, Nuñez, ' +
  'Ibáñez, Doğan, Wang, Zhang, Chen, Nakamura, Tanaka, Patel, Sharma, Khan, Hussain, Ivanov, Petrova, ' +
  "Okafor, Mensah, Adeyemi, O'Brien, MacDonald, Ó Súilleabháin, Kowalski, Nowak, Dvořák"
).split(', ');
const NOTES = [
  'Funds moved through several accounts within days.',
  'Subject declined to explain the origin of the cash.',
  'Linked to an earlier report from a local bank.',
  'Wire transfers to a jurisdiction of concern.',
  'Goods declared below market value at the port.',
  'Tip-off received by telephone; caller anonymous.',
  'Structured deposits just under the reporting threshold.',
  'Company director named in a foreign request.',
];

const FOREIGN_COUNTRIES = COUNTRIES.filter((c) => c !== DEFAULT_COUNTRY);
const DAY_MS = 86_400_000;
/** Suspects are born from 1940 to 2005. */
const FIRST_DOB_MS = Date.UTC(1940, 0, 1);
const DOB_DAYS = (Date.UTC(2005, 11, 31) - FIRST_DOB_MS) / DAY_MS;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** An amount with cents, log-uniform between `min` and `max` units. */
function amount(rng: Random, min: number, max: number): string {
  const units = Math.exp(Math.log(min) + rng.next() * (Math.log(max) - Math.log(min)));
  return (Math.round(units * 100) / 100).toFixed(2);
}

/** A suspect's name: first and last, sometimes a middle name or a double-barrelled surname. */
function suspectName(rng: Random): string {
  const parts = [rng.pick(FIRST_NAMES)];
  if (rng.chance(0.15)) parts.push(rng.pick(FIRST_NAMES));
  parts.push(rng.pick(LAST_NAMES));
  if (rng.chance(0.05)) parts.push(rng.pick(LAST_NAMES));
  return parts.join(' ');
}

/**
 * The body of a new record, as an officer of `agency` would send it: incident number
 * `<agency>-<year>-<seq>`, an incident up to a year before `createdAt`, a suspect born 1940–2005.
 */
export function recordBody(rng: Random, agency: Agency, seq: string, createdAt: Date): Record<string, unknown> {
  const incidentMs = createdAt.getTime() - rng.int(0, 365) * DAY_MS;
  const dobMs = FIRST_DOB_MS + rng.int(0, DOB_DAYS) * DAY_MS;
  const source = rng.pick(DEFAULT_SOURCE_OPTIONS);
  const nexus = rng.chance(0.3);
  const crimeType = rng.chance(0.9) ? rng.pick(CRIME_TYPES) : null;
  const subtypes: readonly string[] | undefined = crimeType ? CRIME_SUBTYPES[crimeType] : undefined;
  return {
    incidentNumber: `${agency}-${new Date(incidentMs).getUTCFullYear()}-${seq}`,
    suspectName: suspectName(rng),
    suspectDob: day(dobMs),
    incidentDate: day(incidentMs),
    caseAmount: amount(rng, 50, 5_000_000),
    seizedAmount: rng.chance(0.4) ? amount(rng, 10, 500_000) : '0.00',
    confiscatedAmount: rng.chance(0.2) ? amount(rng, 10, 250_000) : '0.00',
    sourceOfRecord: source,
    namlcOrganization: source === NAMLC_REFERRAL_SOURCE ? rng.pick(NAMLC_ORGANIZATIONS) : null,
    internationalNexus: nexus,
    cyberAssisted: rng.chance(0.25),
    country: nexus ? rng.pick(FOREIGN_COUNTRIES) : DEFAULT_COUNTRY,
    crimeType,
    crimeSubtype: subtypes && rng.chance(0.8) ? rng.pick(subtypes) : null,
    additionalInfo: rng.chance(0.3) ? rng.pick(NOTES) : null,
  };
}

/** A body checked by the service's own input schema (so seeded documents are ones it could store). */
export function recordInput(body: Record<string, unknown>): RecordInput {
  return RecordInputSchema.parse(body);
}

/**
 * A copy of the name with one letter of its last word (of three letters or more) changed: still
 * within one edit of the original, so the fuzzy name search must find it.
 */
export function withTypo(rng: Random, name: string): string {
  const chars = [...name];
  // Letters inside the last run of 3+ letters ("O'Brien" → "Brien").
  const runs = [...name.matchAll(/\p{L}{3,}/gu)];
  const run = runs.at(-1);
  if (!run) return name;
  const start = [...name.slice(0, run.index)].length;
  const at = start + rng.int(0, [...run[0]].length - 1);
  chars[at] = chars[at]?.toLowerCase() === 'x' ? 'q' : 'x';
  return chars.join('');
}

/** The name with its last word put first ("Maria Lopez" → "Lopez Maria"), as forms in surname order have it. */
export function swapOrder(name: string): string {
  const parts = name.split(' ');
  return parts.length < 2 ? name : [parts.at(-1), ...parts.slice(0, -1)].join(' ');
}

/**
 * The name as a keyboard without accents types it ("José Pérez" → "Jose Perez"), or, for a name
 * without any, with an accent on one of its vowels ("Karen Smith" → "Karen Smíth").
 */
export function toggleAccents(rng: Random, name: string): string {
  const plain = name.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
  if (plain !== name) return plain;
  const vowels = [...name.matchAll(/[aeiou]/g)].map((m) => m.index);
  if (vowels.length === 0) return name;
  const at = rng.pick(vowels);
  const accented = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú' }[name[at] as 'a'];
  return `${name.slice(0, at)}${accented}${name.slice(at + 1)}`;
}

/** Ways an officer of another agency writes the same suspect's name. */
export const NAME_VARIATIONS: ReadonlyArray<{ name: string; apply(rng: Random, name: string): string }> = [
  { name: 'one-letter typo', apply: withTypo },
  { name: 'words swapped', apply: (_rng, name) => swapOrder(name) },
  { name: 'accents', apply: toggleAccents },
];

/** A name no generated record has (made-up syllables), for queries that must find nothing. */
export function unknownName(rng: Random): string {
  const syllables = ['zor', 'vak', 'quil', 'brax', 'thun', 'yev', 'grop', 'xan', 'plim', 'drozz', 'kwen', 'uth'];
  const word = (parts: number) =>
    Array.from({ length: parts }, () => rng.pick(syllables))
      .join('')
      .replace(/^./, (c) => c.toUpperCase());
  return `${word(2)} ${word(3)}`;
}
