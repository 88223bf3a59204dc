import { ERROR_CODES, retryTimeText, type UserIdentity } from '@nrad/contracts';
import { AppError, type AuditActor, type AuditTrail, KeyedLock, type Scope, scopeOf } from '@nrad/service-kit';
import type { IngestConfig } from '../config.ts';
import type { UploadStore } from '../data/uploads.ts';
import { megabytes } from '../domain/index.ts';

/**
 * Each agency's limits on uploads (issue 37): jobs queued or being processed at once
 * (`INGEST_MAX_QUEUED_JOBS`), and bytes uploaded in the last 24 hours (`INGEST_MAX_MB_PER_DAY`).
 * One agency's files cannot fill the queue nor the store for the others. An upload over a limit is
 * refused with 429 and a message (and `Retry-After` when the time is known), recorded in the audit
 * trail as `rate.limited` as the gateway's and the records service's limits are.
 */

/** What the audit events of these refusals name as their category. */
export const LIMIT_CATEGORIES = { jobs: 'upload-jobs', bytes: 'upload-bytes' } as const;

const DAY_MS = 24 * 3600 * 1000;
const MB = 1024 * 1024;

/** 429: an agency's limit is reached; `retryAfter` seconds, when known (`Retry-After`). */
export class UploadLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfter?: number,
  ) {
    super(ERROR_CODES.rateLimited, message);
  }
}

export const LIMIT_MESSAGES = {
  jobs: (limit: number) =>
    `Your agency already has ${limit === 1 ? 'an upload' : `${limit.toLocaleString('en-US')} uploads`} waiting or being processed, the most it may have at once. Try again when ${limit === 1 ? 'it has' : 'one of them has'} finished.`,
  bytes: (usedBytes: number, fileBytes: number, limitBytes: number, retryAt: Date | undefined) =>
    `Your agency has uploaded ${megabytes(usedBytes)} in the last 24 hours; this file (${megabytes(fileBytes)}) would take it over its limit of ${megabytes(limitBytes)} a day.${retryAt ? ` Try again after ${retryTimeText(retryAt)}.` : ''}`,
} as const;

export interface LimitDeps {
  config: Pick<IngestConfig, 'INGEST_MAX_QUEUED_JOBS' | 'INGEST_MAX_MB_PER_DAY'>;
  store: Pick<UploadStore, 'activeCount' | 'sizesSince'>;
  audit: Pick<AuditTrail, 'record'>;
}

/** One agency's uploads are checked and stored one at a time, so two at once cannot both pass. */
const agencies = new KeyedLock();

/**
 * Runs `store` (checks of the file, storing it) once the user's agency is within its limits for a
 * file of `size` bytes, under the agency's lock; else throws `UploadLimited`, recorded first.
 */
export async function withinAgencyLimits<T>(
  deps: LimitDeps,
  user: UserIdentity,
  size: number,
  actor: AuditActor,
  store: () => Promise<T>,
): Promise<T> {
  const scope = scopeOf(user);
  return agencies.run(user.organization, async () => {
    await checkLimits(deps, scope, size, actor);
    return store();
  });
}

async function checkLimits(deps: LimitDeps, scope: Scope, size: number, actor: AuditActor): Promise<void> {
  const maxJobs = deps.config.INGEST_MAX_QUEUED_JOBS;
  if (maxJobs > 0 && (await deps.store.activeCount(scope)) >= maxJobs) {
    await deps.audit.record(actor, 'rate.limited', [], { category: LIMIT_CATEGORIES.jobs, limit: maxJobs });
    throw new UploadLimited(LIMIT_MESSAGES.jobs(maxJobs));
  }
  const maxBytes = deps.config.INGEST_MAX_MB_PER_DAY * MB;
  if (maxBytes <= 0) return;
  const now = Date.now();
  const recent = await deps.store.sizesSince(scope, new Date(now - DAY_MS));
  const used = recent.reduce((sum, u) => sum + u.size, 0);
  if (used + size <= maxBytes) return;
  // When enough of the day's uploads have aged out of the window for this file to fit (never, if it
  // alone is over the limit).
  let retryAt: Date | undefined;
  let left = used;
  for (const u of recent) {
    left -= u.size;
    if (left + size <= maxBytes) {
      retryAt = new Date(u.createdAt.getTime() + DAY_MS);
      break;
    }
  }
  const retryAfter = retryAt ? Math.max(1, Math.ceil((retryAt.getTime() - now) / 1000)) : undefined;
  await deps.audit.record(actor, 'rate.limited', [], {
    category: LIMIT_CATEGORIES.bytes,
    limitMb: deps.config.INGEST_MAX_MB_PER_DAY,
    usedBytes: used,
    size,
    ...(retryAfter ? { retryAfter } : {}),
  });
  throw new UploadLimited(LIMIT_MESSAGES.bytes(used, size, maxBytes, retryAt), retryAfter);
}
