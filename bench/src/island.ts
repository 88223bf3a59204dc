/**
 * A small island's suspects (issue 36): names from a few hundred surnames and given names whose
 * frequencies follow Zipf's law (the k-th most common is 1/k as common as the first), so a few
 * surnames are very common, and dates of birth over sixty years. With 400 surnames the most common
 * is on 15% of records and the ten most common on 45%; with 300 given names the most common is on
 * 16%. The name lists are the benchmark's own (seed.ts) and the held-out sets' (tools/linkage),
 * ranked by a seeded shuffle.
 */
import { HELDOUT_NAMES } from '@nrad/linkage-tools';
import { FIRST_NAMES, LAST_NAMES, type Random } from './seed.ts';

export const ISLAND_SURNAMES = 400;
export const ISLAND_GIVEN_NAMES = 300;
const DAY_MS = 86_400_000;
/** Born from 1945 to 2004. */
const FIRST_DOB_MS = Date.UTC(1945, 0, 1);
const DOB_DAYS = (Date.UTC(2004, 11, 31) - FIRST_DOB_MS) / DAY_MS;

/** More given names heard on the island, so that the pool has 300 distinct ones. */
const MORE_GIVEN_NAMES = [
  'Kirk',
  'Dwayne',
  'Troy',
  'Shawn',
  'Tamika',
  'Renee',
  'Cheryl',
  'Glenn',
  'Curtis',
  'Lloyd',
  'Neville',
  'Everton',
  'Cordell',
  'Jahkeem',
  'Shakira',
  'Nadia',
  'Rochelle',
  'Maxine',
  'Clyde',
  'Errol',
];

/** `count` distinct names of `lists`, in an order shuffled by `rng`. */
function pool(rng: Random, count: number, ...lists: ReadonlyArray<readonly string[]>): string[] {
  const names = [...new Set(lists.flat())];
  for (let i = names.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [names[i], names[j]] = [names[j] as string, names[i] as string];
  }
  if (names.length < count) throw new Error(`only ${names.length} names for a pool of ${count}`);
  return names.slice(0, count);
}

/** Draws ranks 0…n−1 with Zipf weights 1/(k+1): by inverse transform on the cumulative weights. */
class Zipf {
  private readonly cumulative: Float64Array;
  constructor(n: number) {
    this.cumulative = new Float64Array(n);
    let sum = 0;
    for (let k = 0; k < n; k++) {
      sum += 1 / (k + 1);
      this.cumulative[k] = sum;
    }
  }
  draw(rng: Random): number {
    const target = rng.next() * (this.cumulative[this.cumulative.length - 1] as number);
    let low = 0;
    let high = this.cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.cumulative[mid] as number) < target) low = mid + 1;
      else high = mid;
    }
    return low;
  }
  /** The share of draws rank k gets. */
  share(k: number): number {
    const total = this.cumulative[this.cumulative.length - 1] as number;
    return 1 / (k + 1) / total;
  }
}

export interface IslandPerson {
  suspectName: string;
  suspectDob: string;
}

/** The island's people: `person(rng)` draws one (name and date of birth). */
export class Island {
  readonly surnames: readonly string[];
  readonly givenNames: readonly string[];
  private readonly surnameRanks = new Zipf(ISLAND_SURNAMES);
  private readonly givenRanks = new Zipf(ISLAND_GIVEN_NAMES);

  /** `rng` ranks the names (the same seed, the same most common names). */
  constructor(rng: Random) {
    this.surnames = pool(rng, ISLAND_SURNAMES, LAST_NAMES, HELDOUT_NAMES.surnames);
    this.givenNames = pool(
      rng,
      ISLAND_GIVEN_NAMES,
      FIRST_NAMES,
      HELDOUT_NAMES.female,
      HELDOUT_NAMES.male,
      MORE_GIVEN_NAMES,
    );
  }

  /** The share of records with the most common surname, and with the ten most common. */
  surnameShares(): { top: number; topTen: number } {
    let topTen = 0;
    for (let k = 0; k < 10; k++) topTen += this.surnameRanks.share(k);
    return { top: this.surnameRanks.share(0), topTen };
  }

  person(rng: Random): IslandPerson {
    const given = this.givenNames[this.givenRanks.draw(rng)] as string;
    const surname = this.surnames[this.surnameRanks.draw(rng)] as string;
    const dob = new Date(FIRST_DOB_MS + rng.int(0, DOB_DAYS) * DAY_MS).toISOString().slice(0, 10);
    return { suspectName: `${given} ${surname}`, suspectDob: dob };
  }
}
