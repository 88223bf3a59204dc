import {
  type AdminStats,
  AdminStatsSchema,
  type CountryStat,
  CountryStatsSchema,
  type DashboardStats,
  DashboardStatsSchema,
  type RecordEvent,
  type StatsBreakdown,
  StatsBreakdownSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { type AuditTrail, type Logger, type Scope, scopeOf } from '@nrad/service-kit';
import type { StatsStore } from '../data/store.ts';
import {
  adminStatsOf,
  breakdownOf,
  countryStatsOf,
  dashboardStatsOf,
  type StatsModel,
  stateOf,
} from '../domain/figures.ts';

export interface StatsDeps {
  store: StatsStore;
  model: StatsModel;
  logger: Logger;
  /** The current time: "this month" and "this year" are read from it at each request. */
  now: () => Date;
  /** Records counted in the model whose state is not stored yet (their event is not acknowledged). */
  unsaved: Set<string>;
  /** The audit trail (issue 21): ADMIN's read of the agencies' counts is recorded before the answer. */
  audit: Pick<AuditTrail, 'record'>;
}

/** Loads every stored record state into the model (at start). */
export async function loadModel(deps: StatsDeps): Promise<void> {
  for await (const [id, state] of deps.store.all()) deps.model.apply(id, state);
}

/**
 * Applies a run of `records.*` events in stream order (the consumer's batch; one event is a run of
 * one). Idempotent: a snapshot no newer than the record's applied version (a redelivery, a
 * re-published or replayed event, an older one arriving late) changes nothing.
 *
 * A newer snapshot is counted at once and then stored, the run's states in one bulk write (those of
 * records new to the model inserted together); the events are acknowledged (by the consumer) only
 * once stored. Counting first makes a change readable as soon as its event arrives. If the write
 * fails, the records stay in `unsaved` and the events come again: their versions are no longer
 * newer, but the records' current states are written then. If the process dies before the write,
 * nothing was acknowledged: the model is summed from the store at start and the events come again.
 */
export async function applyRecordEvents(deps: StatsDeps, events: readonly RecordEvent[]): Promise<void> {
  const touched = new Map<string, boolean>(); // record id → new to the model before this run
  for (const event of events) {
    const id = event.record.id.toLowerCase();
    const known = deps.model.stateOf(id) !== undefined;
    if (deps.model.apply(id, stateOf(event.record))) deps.unsaved.add(id);
    if (deps.unsaved.has(id) && !touched.has(id)) touched.set(id, !known);
  }
  const states = [...touched].flatMap(([id, fresh]) => {
    const state = deps.model.stateOf(id);
    return state ? [{ id, state, fresh }] : [];
  });
  await deps.store.saveMany(states);
  for (const { id } of states) deps.unsaved.delete(id);
}

/** `GET /api/stats`. */
export function dashboardStats(deps: StatsDeps, user: UserIdentity): DashboardStats {
  return DashboardStatsSchema.parse(dashboardStatsOf(deps.model.figures(scopeOf(user)), deps.now()));
}

/** `GET /api/stats/countries`. */
export function countryStats(deps: StatsDeps, user: UserIdentity): CountryStat[] {
  return CountryStatsSchema.parse(countryStatsOf(deps.model.figures(scopeOf(user))));
}

/** `GET /api/stats/breakdown`: the caller's scope's figures broken down (what reports are written from). */
export function breakdown(deps: StatsDeps, user: UserIdentity): StatsBreakdown {
  const scope = scopeOf(user);
  return StatsBreakdownSchema.parse(breakdownOf(deps.model.figures(scope), scope.agencyOr('ALL'), deps.now()));
}

/** `GET /api/admin/stats` (the caller is ADMIN: the route checks). */
export function adminStats(deps: StatsDeps, scope: Scope): AdminStats {
  return AdminStatsSchema.parse(adminStatsOf(deps.model, scope));
}
