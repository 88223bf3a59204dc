import {
  ERROR_CODES,
  incidentKey,
  incidentProbesSpentMessage,
  type Organization,
  type RecordImportPlan,
  type RecordImportPlanRequest,
  type UserIdentity,
} from '@nrad/contracts';
import { AppError, type AuditActor, type AuditTrail, scopeOf } from '@nrad/service-kit';
import type { RecordRepository } from '../data/records.ts';
import type { ProbeBudget } from '../lib/probe-budget.ts';

/**
 * Incident numbers are unique across agencies (SPEC §3), so a write refused because another
 * organization holds its number tells the writer that the number is in use there: a probe. Each
 * user may make `INCIDENT_PROBE_LIMIT` of them per window; once the budget is spent, every create,
 * edit of the number and upload of theirs is refused until the window ends, whatever its number
 * (docs/adr/0015). ADMIN, who sees every record, is not counted.
 */
export interface ProbeDeps {
  probes: ProbeBudget;
  records: RecordRepository;
  audit: Pick<AuditTrail, 'record'>;
}

/** What audit events of probes name as their category (`rate.limited`'s `category`). */
export const PROBE_CATEGORY = 'incident-numbers';

/** 429: the user's budget is spent; `retryAfter` seconds until its window ends (`Retry-After`). */
export class ProbesSpentError extends AppError {
  constructor(
    readonly retryAfter: number,
    message: string,
  ) {
    super(ERROR_CODES.rateLimited, message);
  }
}

/** A write that may find its number taken, holding one probe of its user's budget while it runs. */
export interface Probe {
  /**
   * The write was refused because `holder` holds its number: when that is another organization,
   * the probe is counted (kept) and recorded (`access.refused`, naming neither the record nor the
   * organization).
   */
  taken(holder: Organization | null): Promise<void>;
  /** The write is over: the probe held is given back unless it was counted. */
  done(): Promise<void>;
}

const NO_PROBE: Probe = { taken: async () => undefined, done: async () => undefined };

const windowMinutes = (deps: ProbeDeps) => Math.round(deps.probes.windowMs / 60_000);

/**
 * Holds one probe of the user's budget for a create or an edit of the incident number, before the
 * number is looked at. Each write in flight holds one, so writes sent at once cannot all pass a
 * budget that has room for fewer of them; a budget already spent (held probes included) refuses
 * the write with 429, recorded as `rate.limited`.
 */
export async function holdProbe(
  deps: ProbeDeps,
  user: UserIdentity,
  actor: AuditActor,
  what: 'create' | 'edit',
): Promise<Probe> {
  // A user who sees every agency's records learns nothing from a number's holder.
  if (scopeOf(user).isAll) return NO_PROBE;
  const state = await deps.probes.take(user.userId, 1);
  if (state.count > deps.probes.limit) {
    // Refused before the number is looked at. The probe taken goes back: the budget may be full
    // only of probes held by writes still running, which give theirs back when they end.
    await deps.probes.give(user.userId, 1);
    throw await spent(deps, actor, state.msBeforeNext, { what });
  }
  let counted = false;
  let over = false;
  return {
    async taken(holder) {
      if (counted || over || holder === null || holder === user.organization) return;
      counted = true;
      await deps.audit.record(actor, 'access.refused', [], {
        status: 409,
        reason: 'incident number held by another agency',
        what,
        count: Math.min(state.count, deps.probes.limit),
        limit: deps.probes.limit,
        windowMinutes: windowMinutes(deps),
      });
    },
    async done() {
      if (counted || over) return;
      over = true;
      await deps.probes.give(user.userId, 1);
    },
  };
}

/** The 429 of a spent budget, recorded (`rate.limited`) before it is answered. */
async function spent(
  deps: ProbeDeps,
  actor: AuditActor,
  msBeforeNext: number,
  detail: Record<string, string | number>,
): Promise<ProbesSpentError> {
  const retryAt = new Date(Date.now() + msBeforeNext);
  const retryAfter = Math.max(1, Math.ceil(msBeforeNext / 1000));
  await deps.audit.record(actor, 'rate.limited', [], {
    category: PROBE_CATEGORY,
    limit: deps.probes.limit,
    windowMinutes: windowMinutes(deps),
    retryAfter,
    ...detail,
  });
  return new ProbesSpentError(retryAfter, incidentProbesSpentMessage(retryAt));
}

/** Which incident keys (of these) records hold, with the organization of each holder. */
async function holdersOf(records: RecordRepository, keys: string[]): Promise<Map<string, string>> {
  const holders = new Map<string, string>();
  const CHUNK = 4000;
  for (let at = 0; at < keys.length; at += CHUNK) {
    for (const [key, organization] of await records.incidentKeyHolders(keys.slice(at, at + CHUNK))) {
      holders.set(key, organization);
    }
  }
  return holders;
}

/**
 * An upload's plan (the ingest worker asks it before importing any row): the rows, in row order,
 * whose number another organization holds are counted against the uploader's budget at once; if
 * the budget is spent before the upload starts, or by one of its rows, the upload stops at the
 * next row (`stopAt`): no row from there on is imported, whatever it holds, so where an upload
 * stops says no more than the probes counted. The plan of an upload is kept for a window, so a
 * retried job is answered the same and counted once.
 */
export async function planImport(
  deps: ProbeDeps,
  { owner, uploadId, rows, actor }: RecordImportPlanRequest & { actor: AuditActor },
): Promise<RecordImportPlan> {
  if (scopeOf(owner).isAll || rows.length === 0) return {};
  const kept = await deps.probes.recall(`${owner.userId}:${uploadId}`);
  if (kept !== undefined) return JSON.parse(kept) as RecordImportPlan;

  const ordered = [...rows].sort((a, b) => a.row - b.row);
  const keys = ordered.map((r) => incidentKey(r.incidentNumber));
  const holders = await holdersOf(deps.records, [...new Set(keys)]);
  const seen = new Set<string>();
  // The places (in `ordered`) of the rows whose number another organization holds, each number once.
  const probes: number[] = [];
  keys.forEach((key, at) => {
    const holder = holders.get(key);
    if (seen.has(key) || holder === undefined || holder === owner.organization) return;
    seen.add(key);
    probes.push(at);
  });

  const { limit } = deps.probes;
  const state = probes.length
    ? await deps.probes.take(owner.userId, probes.length)
    : await deps.probes.peek(owner.userId);
  const before = state.count - probes.length;
  let stopAt: number | undefined;
  let counted = 0;
  if (before >= limit) {
    stopAt = ordered[0]?.row; // spent already: nothing of this upload is imported
  } else {
    counted = Math.min(probes.length, limit - before);
    // The budget is spent by this upload's last counted row: the rows after it are not imported.
    if (before + counted >= limit) stopAt = ordered[(probes[counted - 1] as number) + 1]?.row;
  }
  await deps.probes.give(owner.userId, probes.length - counted);

  if (counted > 0) {
    await deps.audit.record(actor, 'access.refused', [], {
      status: 409,
      reason: 'incident numbers held by another agency',
      what: 'upload',
      jobId: uploadId.slice(0, 200),
      rows: counted,
      count: before + counted,
      limit,
      windowMinutes: windowMinutes(deps),
    });
  }
  const plan: RecordImportPlan = {};
  if (stopAt !== undefined) {
    const error = await spent(deps, actor, state.msBeforeNext, {
      what: 'upload',
      jobId: uploadId.slice(0, 200),
      stoppedAtRow: stopAt,
    });
    plan.stopAt = stopAt;
    plan.retryAt = new Date(Date.now() + error.retryAfter * 1000).toISOString();
  }
  await deps.probes.remember(`${owner.userId}:${uploadId}`, JSON.stringify(plan));
  return plan;
}
