import {
  ERROR_CODES,
  type GeneratedReport,
  GenerateReportSchema,
  ObjectIdSchema,
  type Report,
  type ReportFigures,
  ReportFiguresSchema,
  type ReportJob,
  type ReportList,
  ReportPageQuerySchema,
  type UserIdentity,
} from '@nrad/contracts';
import { AppError, type AuditActor, type AuditTrail, type Logger, notFound, parse, scopeOf } from '@nrad/service-kit';
import { type Job, UnrecoverableError } from 'bullmq';
import { Types } from 'mongoose';
import type { ReportConfig } from '../config.ts';
import { type FiguresApi, FiguresUnavailableError } from '../data/figures-client.ts';
import { ModelError, type ReportWriter } from '../data/model.ts';
import { newReportId, OUTSIDE_SCOPE, type ReportDoc, type ReportStore, reportOf, summaryOf } from '../data/reports.ts';
import type { ReportJobData, ReportJobResult, ReportProgress, ReportQueue } from '../jobs/queue.ts';

export interface ReportDeps {
  config: ReportConfig;
  store: ReportStore;
  figures: FiguresApi;
  writer: ReportWriter;
  queue: ReportQueue;
  logger: Logger;
  now: () => Date;
  /**
   * The audit trail (issue 21): a report asked for and read (`report`), and attempts on another
   * agency's report or job (`access.refused`), recorded before the answer.
   */
  audit: Pick<AuditTrail, 'record'>;
}

export const REPORT_NOT_FOUND = 'Report not found';
export const JOB_NOT_FOUND = 'Report job not found';
/** A failure whose cause is not one we can name to the user (the log has it). */
export const REPORT_FAILED = 'The report could not be written';

/** Whose records a user's report covers: their agency's; ADMIN's covers every agency. */
export const figuresScopeOf = (user: UserIdentity): ReportFigures['scope'] => scopeOf(user).agencyOr('ALL');

/**
 * Queues a report for `user`; resolves its job id (which is also the report's id). The request is
 * recorded in the audit trail first (`report`: its job, scope and parameters, cut to 500
 * characters), so no report is written that the trail does not show asked for.
 */
export async function requestReport(
  deps: ReportDeps,
  user: UserIdentity,
  body: unknown,
  actor: AuditActor,
  grant?: string,
): Promise<string> {
  const { parameters } = parse(GenerateReportSchema, body ?? {});
  const max = deps.config.REPORT_MAX_PENDING_PER_USER;
  if ((await deps.queue.pendingOf(user.userId)) >= max) {
    throw new AppError(
      ERROR_CODES.rateLimited,
      `You have ${max} reports being written; wait for one to finish before asking for another.`,
    );
  }
  const reportId = newReportId().toHexString();
  await deps.audit.record(actor, 'report', [], {
    what: 'request',
    jobId: reportId,
    scope: figuresScopeOf(user),
    parameters: parameters === null ? null : parameters.slice(0, 500),
  });
  await deps.queue.add({ reportId, requester: user, parameters, ...(grant ? { grant } : {}) });
  deps.logger.info({ reportId, organization: user.organization }, 'report queued');
  return reportId;
}

/** The stored report of a job, as `POST /api/generate-report` answers it. */
function generatedOf(doc: ReportDoc): GeneratedReport {
  return { report: doc.report, id: doc._id.toHexString(), createdAt: doc.createdAt.toISOString(), model: doc.model };
}

/** Thrown by `resultWithin` for a job that failed: its message is fit to show. */
export class ReportFailedError extends Error {
  override name = 'ReportFailedError';
}

/**
 * Waits up to `ms` for a job's report. Resolves undefined if it is not done by then; throws
 * ReportFailedError if the job failed for good.
 */
export async function resultWithin(
  deps: ReportDeps,
  user: UserIdentity,
  jobId: string,
  ms: number,
): Promise<GeneratedReport | undefined> {
  const scope = scopeOf(user);
  const job = await deps.queue.get(jobId);
  if (!job) throw new Error(`report job ${jobId} vanished`);
  const deadline = Date.now() + ms;
  let state = await job.getState();
  // The job's end arrives as an event; the state is read again at least every second, in case the
  // event came before the queue's event reader had started (right after the service started).
  while (state !== 'completed' && state !== 'failed' && Date.now() < deadline) {
    try {
      await job.waitUntilFinished(deps.queue.events, Math.min(1000, deadline - Date.now()));
    } catch {
      // A failure or the wait's end: the job's state says which.
    }
    state = await job.getState();
  }
  if (state === 'failed') throw new ReportFailedError((await deps.queue.get(jobId))?.failedReason || REPORT_FAILED);
  if (state !== 'completed') return undefined;
  const doc = await deps.store.get(scope, new Types.ObjectId(jobId));
  if (doc === OUTSIDE_SCOPE) throw new Error(`report ${jobId} is not ${scope}'s`);
  if (!doc) throw new Error(`report ${jobId} completed but is not stored`);
  return generatedOf(doc);
}

const STATES: Record<string, ReportJob['state']> = { active: 'active', completed: 'completed', failed: 'failed' };

/**
 * A report job as its requester's organization sees it; once it carries the report, the read is
 * recorded (`report`, what: job). Another organization's is not found, and the attempt is recorded
 * (`access.refused`) first.
 */
export async function jobOf(
  deps: ReportDeps,
  user: UserIdentity,
  jobId: string,
  actor: AuditActor,
): Promise<ReportJob> {
  const scope = scopeOf(user);
  const job = ObjectIdSchema.safeParse(jobId).success ? await deps.queue.get(jobId) : undefined;
  const ours = job !== undefined && scope.owns(job.data.requester.organization);
  if (job && !ours) await deps.audit.record(actor, 'access.refused', [], { status: 404, jobId });
  if (!job || !ours) throw notFound(JOB_NOT_FOUND);
  const state = STATES[await job.getState()] ?? 'queued';
  const progress = job.progress as Partial<ReportProgress> | undefined;
  const stage = state === 'completed' ? 'done' : state === 'failed' ? 'failed' : (progress?.stage ?? 'queued');
  const stored = state === 'completed' ? await deps.store.get(scope, new Types.ObjectId(jobId)) : null;
  const doc = stored === OUTSIDE_SCOPE ? null : stored;
  if (doc) await deps.audit.record(actor, 'report', [], { what: 'job', reportId: jobId });
  return {
    jobId,
    state,
    stage,
    ...(doc ? { result: generatedOf(doc) } : {}),
    ...(state === 'failed' ? { error: job.failedReason || REPORT_FAILED } : {}),
  };
}

/** The caller's scope's figures, from the services that own them, asked on the caller's behalf. */
export async function collectFigures(
  deps: ReportDeps,
  user: UserIdentity,
  grant: string | undefined,
): Promise<ReportFigures> {
  const requester = { user, grant };
  const [stats, links] = await Promise.all([deps.figures.breakdown(requester), deps.figures.links(requester)]);
  return ReportFiguresSchema.parse({
    scope: figuresScopeOf(user),
    collectedAt: deps.now().toISOString(),
    stats,
    links,
  });
}

/**
 * The worker's job: collects the figures, has the writer (a model or the template) write the
 * report and stores it. Idempotent: a report already stored under the job's id is kept. A failure
 * that another attempt may not mend (a refused key, an unknown model, a timeout) ends the job at
 * once (UnrecoverableError); its message, stored as the job's reason, is fit to show.
 */
export async function writeReport(
  deps: ReportDeps,
  job: Pick<Job<ReportJobData, ReportJobResult>, 'data' | 'updateProgress'>,
): Promise<ReportJobResult> {
  const { reportId, requester, parameters, grant } = job.data;
  const _id = new Types.ObjectId(reportId);
  const scope = scopeOf(requester);
  if (await deps.store.get(scope, _id)) return { reportId };
  try {
    await job.updateProgress({ stage: 'collecting figures' } satisfies ReportProgress);
    const figures = await collectFigures(deps, requester, grant);
    await job.updateProgress({ stage: 'writing' } satisfies ReportProgress);
    const report = await deps.writer.write(figures, parameters);
    await deps.store.save(scope, {
      _id,
      organization: requester.organization,
      createdBy: { id: requester.userId, name: requester.name },
      createdAt: deps.now(),
      parameters,
      model: deps.writer.model,
      report,
      figures,
      jobId: reportId,
    });
    deps.logger.info({ reportId, model: deps.writer.model, chars: report.length }, 'report written');
    return { reportId };
  } catch (err) {
    if (err instanceof ModelError) {
      if (err.retry) throw new Error(err.message);
      throw new UnrecoverableError(err.message);
    }
    if (err instanceof FiguresUnavailableError) throw new Error(`The figures could not be collected: ${err.message}`);
    deps.logger.error({ err, reportId }, 'report not written');
    throw new Error(REPORT_FAILED);
  }
}

/**
 * `GET /api/reports`: the caller's organization's reports, newest first, paged. Not recorded: the
 * list shows who asked what and when, never a report's text or figures (reading one is recorded).
 */
export async function listReports(deps: ReportDeps, user: UserIdentity, query: unknown): Promise<ReportList> {
  const { limit, offset } = parse(ReportPageQuerySchema, query);
  const { items, total } = await deps.store.list(scopeOf(user), limit, offset);
  return { items: items.map(summaryOf), total };
}

/**
 * `GET /api/reports/{id}` (what: read) and its Markdown (what: markdown): one of the caller's
 * organization's reports, its read recorded (`report`); any other id is not found, and an attempt
 * on another organization's report is recorded (`access.refused`).
 */
export async function getReport(
  deps: ReportDeps,
  user: UserIdentity,
  id: string,
  actor: AuditActor,
  what: 'read' | 'markdown',
): Promise<Report> {
  const doc = ObjectIdSchema.safeParse(id).success ? await deps.store.get(scopeOf(user), new Types.ObjectId(id)) : null;
  if (doc === OUTSIDE_SCOPE) await deps.audit.record(actor, 'access.refused', [], { status: 404, reportId: id });
  if (!doc || doc === OUTSIDE_SCOPE) throw notFound(REPORT_NOT_FOUND);
  await deps.audit.record(actor, 'report', [], { what, reportId: id });
  return reportOf(doc);
}

/** The file name of a report's Markdown download. */
export const markdownFileName = (report: Report) => `nrad-report-${report.createdAt.slice(0, 10)}-${report.id}.md`;
