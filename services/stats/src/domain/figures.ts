import {
  type AdminStats,
  type Agency,
  BREAKDOWN_MONTHS,
  type CaseRecord,
  type CountryStat,
  centsToMoney,
  type DashboardStats,
  moneyToCents,
  type Organization,
  type StatsBreakdown,
} from '@nrad/contracts';
import { Scope } from '@nrad/service-kit';

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
  /**
   * Whether the fields below are known: false for a state stored before the breakdowns existed
   * (the service rebuilds such a model from the stream at start; see app.ts).
   */
  detailed: boolean;
  /** `YYYY-MM` of the incident date. */
  incidentMonth: string;
  crimeType: string | null;
  crimeSubtype: string | null;
  cyberAssisted: boolean;
  caseCents: number;
  confiscatedCents: number;
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
    detailed: true,
    incidentMonth: record.incidentDate.slice(0, 7),
    crimeType: record.crimeType ?? null,
    crimeSubtype: record.crimeSubtype ?? null,
    cyberAssisted: record.cyberAssisted,
    caseCents: moneyToCents(record.caseAmount),
    confiscatedCents: moneyToCents(record.confiscatedAmount),
  };
}

/** A key of `Figures.bySubtype`: a crime type and a subtype (either may be absent: ''). */
const subtypeKey = (state: RecordState) => `${state.crimeType ?? ''}\t${state.crimeSubtype ?? ''}`;

/** Adds `delta` to a count in a map, dropping the key when it reaches zero. */
function addTo<K>(map: Map<K, number>, key: K, delta: number): void {
  const next = (map.get(key) ?? 0) + delta;
  if (next === 0) map.delete(key);
  else map.set(key, next);
}

/** Adds `delta` to a sum in a map, dropping the key when it reaches zero. */
function addSum<K>(map: Map<K, bigint>, key: K, delta: bigint): void {
  const next = (map.get(key) ?? 0n) + delta;
  if (next === 0n) map.delete(key);
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
  /** Not deleted and without the detailed fields (stored before the breakdowns existed). */
  withoutDetail = 0;
  /** The detailed ones below count only records whose state is `detailed`. */
  cyberAssisted = 0;
  /** By the incident date's `YYYY-MM`. */
  readonly byIncidentMonth = new Map<string, number>();
  /** By crime type and subtype (`subtypeKey`; '' not given); a type's count is its subtypes' sum. */
  readonly bySubtype = new Map<string, number>();
  /** Sums in cents over every year (bigint: a sum may outgrow 2^53); seized: `seizedByYear`'s. */
  caseCents = 0n;
  confiscatedCents = 0n;

  /** Counts a record's state in (`sign` 1) or out (-1); a deleted record counts nowhere. */
  count(state: RecordState, sign: 1 | -1): void {
    if (state.deleted) return;
    this.total += sign;
    addTo(this.byMonth, state.createdMonth, sign);
    addSum(this.seizedByYear, state.incidentYear, BigInt(sign * state.seizedCents));
    if (state.internationalNexus) {
      this.international += sign;
      addTo(this.byCountry, state.country, sign);
    }
    if (!state.detailed) {
      this.withoutDetail += sign;
      return;
    }
    if (state.cyberAssisted) this.cyberAssisted += sign;
    addTo(this.byIncidentMonth, state.incidentMonth, sign);
    addTo(this.bySubtype, subtypeKey(state), sign);
    this.caseCents += BigInt(sign * state.caseCents);
    this.confiscatedCents += BigInt(sign * state.confiscatedCents);
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

  /** The figures of a scope: its agency's, or every organization's for an all-agency scope. */
  figures(scope: Scope): Readonly<Figures> {
    const agency = scope.agencyOr(null);
    return agency === null ? this.all : this.figuresOf(agency);
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

/** The `YYYY-MM` keys of the `n` calendar months ending with `now`'s (UTC), oldest first. */
export function lastMonths(now: Date, n: number): string[] {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return Array.from({ length: n }, (_, i) => monthKey(new Date(Date.UTC(year, month - (n - 1 - i), 1))));
}

/** a / b to 4 decimals, or null when b is 0. */
function ratio(a: bigint, b: bigint): number | null {
  if (b === 0n) return null;
  return Math.round(Number((a * 1_000_000n) / b) / 100) / 10_000;
}

/** `GET /api/stats/breakdown` from a set of figures at `now`. */
export function breakdownOf(figures: Readonly<Figures>, scope: StatsBreakdown['scope'], now: Date): StatsBreakdown {
  const year = now.getUTCFullYear();
  const types = new Map<string, { count: number; subtypes: Array<{ subtype: string | null; count: number }> }>();
  for (const [key, count] of figures.bySubtype) {
    const [type = '', subtype = ''] = key.split('\t');
    const t = types.get(type) ?? { count: 0, subtypes: [] };
    types.set(type, t);
    t.count += count;
    t.subtypes.push({ subtype: subtype || null, count });
  }
  const byCount =
    <T extends { count: number }>(name: (t: T) => string | null) =>
    (a: T, b: T) =>
      b.count - a.count || (name(a) ?? '\uffff').localeCompare(name(b) ?? '\uffff', 'en');
  const detailed = figures.total - figures.withoutDetail;
  let seized = 0n;
  for (const cents of figures.seizedByYear.values()) seized += cents;
  return {
    scope,
    asOf: now.toISOString(),
    totalRecords: figures.total,
    internationalCases: figures.international,
    cyberAssisted: {
      count: figures.cyberAssisted,
      share: detailed > 0 ? Math.round((figures.cyberAssisted / detailed) * 10_000) / 10_000 : null,
    },
    months: lastMonths(now, BREAKDOWN_MONTHS).map((month) => ({
      month,
      incidents: figures.byIncidentMonth.get(month) ?? 0,
      recorded: figures.byMonth.get(month) ?? 0,
    })),
    crimeTypes: [...types]
      .map(([type, t]) => ({
        crimeType: type || null,
        count: t.count,
        subtypes: t.subtypes.sort(byCount((s) => s.subtype)),
      }))
      .sort(byCount((t) => t.crimeType)),
    countries: countryStatsOf(figures),
    amounts: {
      caseTotal: centsToMoney(figures.caseCents),
      seizedTotal: centsToMoney(seized),
      confiscatedTotal: centsToMoney(figures.confiscatedCents),
      confiscatedToSeized: ratio(figures.confiscatedCents, seized),
      seizedThisYear: centsToMoney(figures.seizedByYear.get(year) ?? 0n),
      year,
    },
    withoutDetail: figures.withoutDetail,
  };
}

/** `GET /api/admin/stats`: records that are not deleted, per agency (a scope of every agency's). */
export function adminStatsOf(model: StatsModel, scope: Scope): AdminStats {
  if (!scope.isAll) throw new Error(`every agency's counts asked in ${scope}`);
  const total = (agency: Agency) => model.figures(Scope.agency(agency)).total;
  return { bpsRecords: total('BPS'), fiaRecords: total('FIA'), cusRecords: total('CUS') };
}
