import { ERROR_CODES, type ErrorBody, type ErrorCode, formatValidationError } from '@nrad/contracts';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { Logger } from './logger.ts';

/**
 * A failure the caller can understand and act on. Domain code throws these; it knows codes, not
 * HTTP. The error middleware maps each code to a status and answers `{ message, code }`.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const validationError = (message: string) => new AppError(ERROR_CODES.validation, message);
export const notFound = (message = 'Not found') => new AppError(ERROR_CODES.notFound, message);
export const conflict = (message: string, code: ErrorCode = ERROR_CODES.conflict) => new AppError(code, message);
export const forbidden = (message = 'Forbidden') => new AppError(ERROR_CODES.forbidden, message);
export const unauthenticated = (message = 'Authentication required') =>
  new AppError(ERROR_CODES.unauthenticated, message);

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  MALFORMED_JSON: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  ACCOUNT_LOCKED: 423,
  RATE_LIMITED: 429,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  USER_EXISTS: 409,
  INCIDENT_NUMBER_TAKEN: 409,
  STALE_VERSION: 409,
  ALREADY_LINKED: 409,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  NOT_IMPLEMENTED: 501,
};

export function statusForCode(code: ErrorCode): number {
  return STATUS[code];
}

/** Parses input with a contracts schema; a failure is a 400 naming each field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(formatValidationError(result.error));
  return result.data;
}

/** Seconds a client is asked to wait when the store is busy or out of reach. */
export const STORE_BUSY_RETRY_SECONDS = 5;
export const STORE_BUSY_MESSAGE = 'The service is busy. Please try again shortly.';

/**
 * Whether an error says the store could not take the request now, rather than that the request
 * was wrong (issue 37: answered 503 with Retry-After, never 500): FerretDB's SQLite still busy
 * after its busy timeout, a write conflict or a transient transaction error of MongoDB, or a store
 * that is out of reach. Each write is one operation or one transaction, so a refused one wrote
 * nothing.
 */
export function isStoreBusy(err: unknown): boolean {
  const e = err as {
    name?: string;
    message?: string;
    code?: number;
    errorLabels?: unknown;
    errorLabelSet?: Set<string>;
  };
  if (!e || typeof e !== 'object') return false;
  if (/SQLITE_BUSY|database (table )?is locked/i.test(e.message ?? '')) return true;
  if (e.code === 112) return true; // WriteConflict
  const labels = e.errorLabelSet ?? new Set(Array.isArray(e.errorLabels) ? (e.errorLabels as string[]) : []);
  if (labels.has('TransientTransactionError') || labels.has('RetryableWriteError')) return true;
  return [
    'MongoServerSelectionError',
    'MongoNetworkError',
    'MongoNetworkTimeoutError',
    'MongoNotConnectedError',
  ].includes(e.name ?? '');
}

/** Errors thrown by Koa's body parser and http-errors carry a status and sometimes a type. */
function fromHttpError(err: unknown): ErrorBody & { status: number } {
  const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean; message?: string };
  const status = e.status ?? e.statusCode ?? 500;
  if (status === 413 || e.type === 'entity.too.large') {
    return { status: 413, code: ERROR_CODES.payloadTooLarge, message: 'Request body is too large' };
  }
  // The JSON parser (co-body's bourne) refuses a `__proto__` key at any level itself.
  if (status === 400 && e.message === 'Object contains forbidden prototype property') {
    return { status: 400, code: ERROR_CODES.validation, message: 'body: must not hold the key "__proto__"' };
  }
  if (e.type === 'entity.parse.failed' || (status === 400 && /json/i.test(e.message ?? ''))) {
    return { status: 400, code: ERROR_CODES.malformedJson, message: 'Request body is not valid JSON' };
  }
  if (status === 415) {
    return { status: 415, code: ERROR_CODES.unsupportedMediaType, message: 'Request body must be JSON' };
  }
  if (status === 404) return { status, code: ERROR_CODES.notFound, message: 'Not found' };
  if (status === 405) return { status, code: ERROR_CODES.methodNotAllowed, message: 'Method not allowed' };
  // koa-router's answer to a method no route of the app knows.
  if (status === 501) return { status, code: ERROR_CODES.notImplemented, message: 'Method not implemented' };
  if (status >= 400 && status < 500 && e.expose && e.message) {
    return { status, code: ERROR_CODES.validation, message: e.message };
  }
  return { status: 500, code: ERROR_CODES.internal, message: 'Internal server error' };
}

/**
 * The one error middleware: AppErrors become `{ message, code }` with their status; client errors
 * from Koa's own machinery get a clear message; anything else is logged and answered with a
 * generic 500 that reveals nothing inside.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async function errorMiddleware(ctx, next) {
    try {
      await next();
      // Koa's 404 and koa-router's allowedMethods (405, 501) leave the body empty: say what it is.
      if ((ctx.status === 404 || ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
        const { status, code, message } = fromHttpError({ status: ctx.status });
        ctx.status = status;
        ctx.body = { message, code } satisfies ErrorBody;
      }
    } catch (err) {
      if (err instanceof AppError) {
        ctx.status = statusForCode(err.code);
        ctx.body = { message: err.message, code: err.code } satisfies ErrorBody;
        return;
      }
      if (isStoreBusy(err)) {
        logger.warn({ err }, 'the store is busy: answered 503');
        ctx.status = 503;
        ctx.set('Retry-After', String(STORE_BUSY_RETRY_SECONDS));
        ctx.body = { message: STORE_BUSY_MESSAGE, code: ERROR_CODES.unavailable } satisfies ErrorBody;
        return;
      }
      const mapped = fromHttpError(err);
      if (mapped.status >= 500) logger.error({ err }, 'unhandled error');
      ctx.status = mapped.status;
      ctx.body = { message: mapped.message, code: mapped.code } satisfies ErrorBody;
    }
  };
}
