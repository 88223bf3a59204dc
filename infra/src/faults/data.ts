/**
 * What the fault suite's client writes: records with unique incident numbers and suspects (so that
 * no two of them can be linked by chance), counterparts in another agency with the
 * same name and date of birth (so that those must be linked), and an upload's workbook with some
 * invalid rows on purpose.
 */
import * as XLSX from 'xlsx';

/** A record as `POST /api/records` takes it. */
export interface RecordBody {
  incidentNumber: string;
  suspectName: string;
  suspectDob: string;
  incidentDate: string;
  caseAmount: string;
  seizedAmount: string;
  confiscatedAmount: string;
  sourceOfRecord: string;
  internationalNexus: boolean;
  cyberAssisted: boolean;
  country: string;
}

/**
 * Consonants of 11 distinct Double Metaphone codes (b is P, sh is X, h is H...), so a word's code is
 * its consonants' digits.
 */
const CONSONANTS = ['b', 'd', 'f', 'k', 'l', 'm', 'n', 'r', 's', 'sh', 'h'];
const VOWELS = 'aeiou';
const day = (base: string, days: number) =>
  new Date(Date.parse(`${base}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * Name word `n`: six syllables, the first five the base-11 digits of `n` and the last their sum
 * (mod 11), each vowel following its consonant's digit. Two words thus differ in the sound of at
 * least two syllables (four letters or more) and in their phonetic code: never the same, a typo or
 * a sound-alike of each other, and two people of suspectOf share no blocking key of the linking
 * service (measured on 20,000 people, names of two words: no candidate pair at all), so only the
 * counterparts made on purpose (the same name and date of birth) can be linked. Up to 161,051 words.
 */
function nameOf(n: number): string {
  const digits = [4, 3, 2, 1, 0].map((p) => Math.floor(n / 11 ** p) % 11);
  digits.push(digits.reduce((a, b) => a + b, 0) % 11);
  const word = digits.map((d, i) => `${CONSONANTS[d]}${VOWELS[(d * 3 + i) % 5]}`).join('');
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

/** How many people the suite may name: their given names take nameOf(0 … PEOPLE − 1), their surnames the next PEOPLE. */
const PEOPLE = 80_000;

/**
 * The suspect of person `n` (n < PEOPLE): a given name nameOf(n), a surname nameOf(PEOPLE + n · 7919
 * mod PEOPLE) (7919, prime, shares no factor with PEOPLE: no two people share a surname, and no
 * surname is anyone's given name), and a date of birth one day after person n − 1's. People close
 * in n have given names alike in sound (the same first syllables); their surnames are far apart, so
 * no two people agree on more than one look-alike word and none are linked. Two words, because the
 * linking service sends a one-word name to review even against the same word and date of birth
 * (issue 36: a surname alone is part of a name), and the suite's counterparts must be linked.
 */
export function suspectOf(n: number): { suspectName: string; suspectDob: string } {
  const surname = nameOf(PEOPLE + ((n * 7919) % PEOPLE));
  return { suspectName: `${nameOf(n)} ${surname}`, suspectDob: day('1930-01-01', n % 30_000) };
}

/** A valid record about person `n`, with the given incident number. */
export function recordBody(incidentNumber: string, n: number): RecordBody {
  return {
    incidentNumber,
    ...suspectOf(n),
    incidentDate: day('2025-01-01', n % 300),
    caseAmount: `${1000 + (n % 500)}.50`,
    seizedAmount: `${n % 40}.00`,
    confiscatedAmount: '0.00',
    sourceOfRecord: 'Police Investigation',
    internationalNexus: n % 7 === 0,
    cyberAssisted: n % 5 === 0,
    country: 'Bermuda',
  };
}

const pad = (i: number) => String(i).padStart(6, '0');
export const createNumber = (i: number) => `FLT-C-${pad(i)}`;
export const rowNumber = (r: number) => `FLT-U-${pad(r)}`;
export const seedNumber = (k: number) => `FLT-S-${pad(k)}`;

/** Every 10th create has a counterpart in another agency (identical name and date of birth). */
export const createHasCounterpart = (i: number) => i % 10 === 0;
/** One row in 100 is invalid. */
export const rowIsInvalid = (r: number) => r % 100 === 50;
/** One valid row in 50 has a counterpart in another agency. */
export const rowHasCounterpart = (r: number) => r % 50 === 10 && !rowIsInvalid(r);

/** The whole plan of a run: who writes what, which rows are invalid, which pairs must be linked. */
export interface Plan {
  creates: RecordBody[];
  rows: RecordBody[];
  /** Row indexes (0-based) that are invalid on purpose. */
  invalidRows: Set<number>;
  /** The counterparts to create first, each naming the create or row it must be linked to. */
  seeds: Array<{ body: RecordBody; of: { kind: 'create' | 'row'; index: number } }>;
}

export function plan(creates: number, uploadRows: number): Plan {
  const p: Plan = { creates: [], rows: [], invalidRows: new Set(), seeds: [] };
  for (let i = 0; i < creates; i++) {
    p.creates.push(recordBody(createNumber(i), i));
    if (createHasCounterpart(i)) {
      p.seeds.push({ body: recordBody(seedNumber(p.seeds.length), i), of: { kind: 'create', index: i } });
    }
  }
  for (let r = 0; r < uploadRows; r++) {
    const n = creates + r;
    const body = recordBody(rowNumber(r), n);
    if (rowIsInvalid(r)) {
      p.invalidRows.add(r);
      // A date of birth on the incident date (must be before it), or an amount with 3 decimals.
      if (r % 200 === 50) body.suspectDob = body.incidentDate;
      else body.caseAmount = '12.345';
    } else if (rowHasCounterpart(r)) {
      p.seeds.push({ body: recordBody(seedNumber(p.seeds.length), n), of: { kind: 'row', index: r } });
    }
    p.rows.push(body);
  }
  return p;
}

/** The template's column titles for each field the suite fills. */
const TITLES: Record<keyof RecordBody, string> = {
  incidentNumber: 'Incident Number',
  suspectName: 'Suspect Name',
  suspectDob: 'Suspect Date of Birth',
  incidentDate: 'Incident Date',
  caseAmount: 'Case Amount',
  seizedAmount: 'Seized Amount',
  confiscatedAmount: 'Confiscated Amount',
  sourceOfRecord: 'Source of Record',
  internationalNexus: 'International Nexus',
  cyberAssisted: 'Cyber-Assisted',
  country: 'Country',
};

/**
 * The upload as a user makes it: the template downloaded from the system (`template`, an .xlsx),
 * its header kept, one row per record below it. Throws when the template lacks a column the suite
 * fills.
 */
export function workbookOf(template: Uint8Array, rows: readonly RecordBody[]): Uint8Array {
  const sheet = XLSX.read(template, { type: 'array' });
  const first = sheet.Sheets[sheet.SheetNames[0] as string] as XLSX.WorkSheet;
  const header = (XLSX.utils.sheet_to_json<unknown[]>(first, { header: 1 })[0] ?? []).map(String);
  const missing = Object.values(TITLES).filter((t) => !header.includes(t));
  if (missing.length) throw new Error(`the template has no column ${missing.join(', ')} (it has ${header.join(', ')})`);
  const column = new Map(Object.entries(TITLES).map(([field, title]) => [title, field as keyof RecordBody]));
  const table: unknown[][] = [header];
  for (const body of rows) {
    table.push(
      header.map((title) => {
        const field = column.get(title);
        const v = field ? body[field] : '';
        return typeof v === 'boolean' ? (v ? 'Yes' : 'No') : v;
      }),
    );
  }
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(table), 'Records');
  return new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'xlsx', compression: true }) as ArrayBuffer);
}
