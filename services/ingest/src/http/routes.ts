import Router from '@koa/router';
import { type BatchUploadAccepted, type BatchUploadResult, ERROR_CODES, type IngestJob, routes } from '@nrad/contracts';
import { AppError, actorOf, GRANT_HEADER, mountRoute, type ServiceState, userOf } from '@nrad/service-kit';
import { buildTemplate, TEMPLATE_FILE_NAME, UploadRefused } from '../domain/index.ts';
import { UploadLimited } from '../use-cases/limits.ts';
import * as uploads from '../use-cases/uploads.ts';
import { readSingleFile } from './multipart.ts';

export const UPLOAD_PATH = '/api/records/batch-upload';
const MB = 1024 * 1024;

/** A refusal of the domain as the API's error (status from its kind). */
function asAppError(err: unknown): unknown {
  if (!(err instanceof UploadRefused)) return err;
  const code =
    err.status === 413
      ? ERROR_CODES.payloadTooLarge
      : err.status === 415
        ? ERROR_CODES.unsupportedMediaType
        : ERROR_CODES.validation;
  return new AppError(code, err.message);
}

/**
 * The ingest paths (ARCHITECTURE.md "Route ownership"). An upload accepted and its completion are
 * recorded in the audit trail (`upload`; use-cases/uploads.ts), and an upload refused for its
 * agency's limits (`rate.limited`, use-cases/limits.ts); a job's status and the template name no
 * record and are not, but an attempt on another agency's job is (`access.refused`).
 */
export function apiRoutes(deps: uploads.IngestDeps) {
  const router = new Router<ServiceState>({ prefix: '/api' });

  mountRoute(router, routes.ingest.upload, async (ctx) => {
    const user = userOf(ctx.state);
    const maxBytes = deps.config.INGEST_MAX_FILE_MB * MB;
    let uploadId: string;
    try {
      const file = await readSingleFile(ctx, maxBytes);
      uploadId = await uploads.acceptUpload(deps, user, file, actorOf(ctx), ctx.get(GRANT_HEADER) || undefined);
    } catch (err) {
      // An agency over its limits (429): when it may try again, if that is known.
      if (err instanceof UploadLimited && err.retryAfter) ctx.set('Retry-After', String(err.retryAfter));
      throw asAppError(err);
    }
    const wait = ctx.query.async === '1' ? 0 : deps.config.INGEST_WAIT_SECONDS * 1000;
    const result = wait > 0 ? await uploads.resultWithin(deps, user, uploadId, wait) : undefined;
    if (result) {
      ctx.body = result satisfies BatchUploadResult;
      return;
    }
    ctx.status = 202;
    ctx.set('Location', `/api/ingest/jobs/${uploadId}`);
    return { jobId: uploadId } satisfies BatchUploadAccepted;
  });

  mountRoute(router, routes.ingest.job, async (ctx) => {
    return (await uploads.jobOf(deps, userOf(ctx.state), ctx.params.jobId, actorOf(ctx))) satisfies IngestJob;
  });

  mountRoute(router, routes.ingest.template, async (ctx) => {
    const user = userOf(ctx.state);
    const [sources, countries] = await Promise.all([
      deps.records.options(user, 'source'),
      deps.records.options(user, 'country'),
    ]);
    ctx.set('Content-Type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    ctx.set('Content-Disposition', `attachment; filename="${TEMPLATE_FILE_NAME}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Buffer.from(buildTemplate({ sources, countries }));
  });

  return router;
}
