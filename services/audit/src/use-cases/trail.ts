import { type AuditPage, AuditQuerySchema, type UserIdentity } from '@nrad/contracts';
import { notFound, parse, scopeOf, validationError } from '@nrad/service-kit';
import type { RecordOwners } from '../data/owners.ts';
import type { AuditFilter, AuditStore } from '../data/store.ts';

/** The records service's answer for a record of another agency (or none): the same body here. */
export const RECORD_NOT_FOUND = 'Record not found';

export const RECORD_ID_REQUIRED =
  'recordId: is required (an agency reads the audit trail of one of its own records at a time)';

export interface TrailDeps {
  store: AuditStore;
  owners: RecordOwners;
}

/**
 * `GET /api/audit`: the entries the query selects, newest (highest seq) first, a page of them and
 * how many there are.
 * - `recordId`: entries naming the record; `userId`: the user's entries; `from` (inclusive) and
 *   `to` (exclusive): the entry's time (`at`). Every filter given must hold.
 * - ADMIN reads everything.
 * - An agency user must name a record its organization owns (per `record_owners`); any other
 *   record, or one not known (yet), is answered as the records service answers another agency's
 *   record: 404 `Record not found`. Each item then lists only that record among its record ids (a
 *   list page or search of ADMIN's names other agencies' records too), and another organization's
 *   action shows that organization only: no user id, no request id (issue 34: an agency learns
 *   that FIA read its record, not which FIA user or what was asked). Its `userId` filter reaches its
 *   own agency's users only (another agency's user id finds nothing, as an unknown one).
 */
export async function readTrail(deps: TrailDeps, user: UserIdentity, query: unknown): Promise<AuditPage> {
  const q = parse(AuditQuerySchema, query);
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (from && to && !(from < to)) throw validationError('to: must be later than from');
  const filter: AuditFilter = {
    ...(q.recordId !== undefined ? { recordId: q.recordId } : {}),
    ...(q.userId !== undefined ? { userId: q.userId } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
  const scope = scopeOf(user);
  if (scope.isAll) return deps.store.page(scope, filter, q.limit, q.offset);

  if (q.recordId === undefined) throw validationError(RECORD_ID_REQUIRED);
  if ((await deps.owners.ownerOf(scope, q.recordId)) === null) throw notFound(RECORD_NOT_FOUND);
  return deps.store.page(scope, filter, q.limit, q.offset);
}
