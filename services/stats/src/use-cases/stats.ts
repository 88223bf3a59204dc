import {
  type AdminStats,
  AdminStatsSchema,
  type CountryStat,
  CountryStatsSchema,
  type DashboardStats,
  DashboardStatsSchema,
  type Organization,
  type RecordEvent,
  type UserIdentity,
} from '@nrad/contracts';
import type { Logger } from '@nrad/service-kit';
import type { StatsStore } from '../data/store.ts';
import { adminStatsOf, countryStatsOf, dashboardStatsOf, type StatsModel, stateOf } from '../domain/figures.ts';

export interface StatsDeps {
  store: StatsStore;
  model: StatsModel;
  logger: Logger;
  /** The current time: "this month" and "this year" are read from it at each request. */
  now: () => Date;
}

/** Loads every stored record state into the model (at start). */
export async function loadModel(deps: StatsDeps): Promise<void> {
  for await (const [id, state] of deps.store.all()) deps.model.apply(id, state);
}

/**
 * Applies one `records.*` event. Idempotent: a snapshot no newer than the record's applied version
 * (a redelivery, a re-published or replayed event, an older one arriving late) changes nothing. A
 * newer one is stored first and counted after, so what is counted is always what is stored: if the
 * write fails the event is retried, and if the process dies the model is summed again at start.
 */
export async function applyRecordEvent(deps: StatsDeps, event: RecordEvent): Promise<void> {
  const id = event.record.id.toLowerCase();
  if (!deps.model.isNewer(id, event.record.version)) return;
  const next = stateOf(event.record);
  await deps.store.save(id, next, deps.model.versionOf(id) === undefined);
  deps.model.apply(id, next);
}

/** Whose records a user's statistics count: their agency's; ADMIN's are every organization's. */
export const scopeOf = (user: UserIdentity): Organization | null =>
  user.organization === 'ADMIN' ? null : user.organization;

/** `GET /api/stats`. */
export function dashboardStats(deps: StatsDeps, user: UserIdentity): DashboardStats {
  return DashboardStatsSchema.parse(dashboardStatsOf(deps.model.figures(scopeOf(user)), deps.now()));
}

/** `GET /api/stats/countries`. */
export function countryStats(deps: StatsDeps, user: UserIdentity): CountryStat[] {
  return CountryStatsSchema.parse(countryStatsOf(deps.model.figures(scopeOf(user))));
}

/** `GET /api/admin/stats` (the caller is ADMIN: the route checks). */
export function adminStats(deps: StatsDeps): AdminStats {
  return AdminStatsSchema.parse(adminStatsOf(deps.model));
}
