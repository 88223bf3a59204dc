import {
  type AdminStats,
  type CaseRecord,
  type CountryStat,
  centsToMoney,
  type DashboardStats,
  moneyToCents,
  type Organization,
} from '@nrad/contracts';

/**
 * What the statistics need of one record, derived from its latest snapshot when its event is
 * applied (and stored so: no date arithmetic is ever done in a query). `version` is the record's
 * own version: a snapshot no newer than the one applied changes nothing.
 */
export interface RecordState {
  organization: Organization;
  version: number;
  deleted: boolean;
  country: string;
  internationalNexus: boolean;
  /** The UTC calendar month the record was created in, `YYYY-MM`. */
  createdMonth: string;
  /** The calendar year of the incident date. */
  incidentYear: number;
  seizedCents: number;
}

/** `YYYY-MM` of an instant, in UTC. */
export const monthKey = (at: Date) => at.toISOString().slice(0, 7);

/** The fields of a record snapshot the statistics count by. */
export function stateOf(record: CaseRecord): RecordState {
  return {
    organization: record.organization,
    version: record.version,
    deleted: record.deleted,
    country: record.country,
    internationalNexus: record.internationalNexus,
    createdMonth: monthKey(new Date(record.createdAt)),
    incidentYear: Number(record.incidentDate.slice(0, 4)),
    seizedCents: moneyToCents(record.seizedAmount),
  };
}

/** Adds `delta` to a count in a map, dropping the key when it reaches zero. */
function addTo<K>(map: Map<K, number>, key: K, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/** The running figures of one organization (or of all): what the counted records add up to. */
export class Figures {
  /** Records that are not deleted. */
  total = 0;
  /** Of those, with an international nexus. */
  international = 0;
  /** Not deleted, by `createdMonth`. */
  readonly byMonth = new Map<string, number>();
  /** Seized cents of records not deleted, by `incidentYear` (bigint: a sum may outgrow 2^53). */
  readonly seizedByYear = new Map<number, bigint>();
  /** Not deleted and with an international nexus, by country. */
  readonly byCountry = new Map<string, number>();

  /** Counts a record's state in (`sign` 1) or out (-1); a deleted record counts nowhere. */
  count(state: RecordState, sign: 1 | -1): void {
    if (state.deleted) return;
    this.total += sign;
    addTo(this.byMonth, state.createdMonth, sign);
    const seized = (this.seizedByYear.get(state.incidentYear) ?? 0n) + BigInt(sign * state.seizedCents);
    if (seized === 0n) this.seizedByYear.delete(state.incidentYear);
    else this.seizedByYear.set(state.incidentYear, seized);
    if (state.internationalNexus) {
      this.international += sign;
      addTo(this.byCountry, state.country, sign);
    }
  }
}

/**
 * The read model in memory: the last applied state of every record, and per organization (and in
 * all) the figures those states add up to. Applying a newer state moves the record's contribution
 * from its old state to its new one, so a delete stops counting, a restore counts again and an edit
 * moves counts between countries, years and amounts; an older or equal version changes nothing.
 */
export class StatsModel {
  private readonly states = new Map<string, RecordState>();
  private readonly byOrganization = new Map<Organization, Figures>();
  private readonly all = new Figures();

  /** How many records the model holds (deleted ones too). */
  get size(): number {
    return this.states.size;
  }

  /** The version applied for a record, if any. */
  versionOf(id: string): number | undefined {
    return this.stateOf(id)?.version;
  }

  /** The state applied for a record, if any. */
  stateOf(id: string): RecordState | undefined {
    return this.states.get(id);
  }

  /** Whether a snapshot at `version` would change the model. */
  isNewer(id: string, version: number): boolean {
    const current = this.versionOf(id);
    return current === undefined || version > current;
  }

  /** Applies a state if it is newer than the one held; returns whether it was. */
  apply(id: string, next: RecordState): boolean {
    if (!this.isNewer(id, next.version)) return false;
    const previous = this.states.get(id);
    if (previous) this.count(previous, -1);
    this.states.set(id, next);
    this.count(next, 1);
    return true;
  }

  private count(state: RecordState, sign: 1 | -1): void {
    this.figuresOf(state.organization).count(state, sign);
    this.all.count(state, sign);
  }

  private figuresOf(organization: Organization): Figures {
    let figures = this.byOrganization.get(organization);
    if (!figures) {
      figures = new Figures();
      this.byOrganization.set(organization, figures);
    }
    return figures;
  }

  /** The figures of one organization, or of all when `organization` is null. */
  figures(organization: Organization | null): Readonly<Figures> {
    return organization === null ? this.all : this.figuresOf(organization);
  }

  /** Every record's state (for writing a rebuilt model). */
  entries(): IterableIterator<[string, RecordState]> {
    return this.states.entries();
  }
}

/** `GET /api/stats` from a set of figures at `now`: this month and this year are UTC's. */
export function dashboardStatsOf(figures: Readonly<Figures>, now: Date): DashboardStats {
  const year = now.getUTCFullYear();
  return {
    totalRecords: figures.total,
    thisMonth: figures.byMonth.get(monthKey(now)) ?? 0,
    internationalCases: figures.international,
    totalSeizedAmount: centsToMoney(figures.seizedByYear.get(year) ?? 0n),
    seizedYear: year,
  };
}

/** `GET /api/stats/countries`: most incidents first, ties by name. */
export function countryStatsOf(figures: Readonly<Figures>): CountryStat[] {
  return [...figures.byCountry]
    .map(([country, count]) => ({ country, count }))
    .sort((a, b) => b.count - a.count || a.country.localeCompare(b.country, 'en'));
}

/** `GET /api/admin/stats`: records that are not deleted, per agency. */
export function adminStatsOf(model: StatsModel): AdminStats {
  return {
    bpsRecords: model.figures('BPS').total,
    fiaRecords: model.figures('FIA').total,
    cusRecords: model.figures('CUS').total,
  };
}
