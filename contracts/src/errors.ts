import { z } from 'zod';

/** The one error body every NRAD service and the gateway answer with. */
export const ErrorBodySchema = z.object({
  message: z.string(),
  code: z.string(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Stable error codes. Compare by code, never by message text. */
export const ERROR_CODES = {
  validation: 'VALIDATION_ERROR',
  malformedJson: 'MALFORMED_JSON',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  unauthenticated: 'UNAUTHENTICATED',
  invalidCredentials: 'INVALID_CREDENTIALS',
  accountLocked: 'ACCOUNT_LOCKED',
  rateLimited: 'RATE_LIMITED',
  forbidden: 'FORBIDDEN',
  notFound: 'NOT_FOUND',
  /** 405: the path does not answer this method. */
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  conflict: 'CONFLICT',
  userExists: 'USER_EXISTS',
  /** 409: the incident number belongs to another record (the form shows it on that field). */
  incidentNumberTaken: 'INCIDENT_NUMBER_TAKEN',
  /** 409: the two records are linked already (often by NRAD itself, moments after a save). */
  alreadyLinked: 'ALREADY_LINKED',
  /** 409: the record changed since the editor read it (the edit is refused, not merged). */
  staleVersion: 'STALE_VERSION',
  internal: 'INTERNAL_ERROR',
  /** 502: a server beyond NRAD (the AI model's) failed the request; the message says how. */
  upstream: 'UPSTREAM_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
  /** 501: a method NRAD does not answer anywhere. */
  notImplemented: 'NOT_IMPLEMENTED',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/**
 * One readable sentence for a failed validation, naming each field:
 * `email: Invalid email; password: Password must be at least 8 characters`.
 */
export function formatValidationError(error: z.ZodError): string {
  return (
    fieldErrors(error)
      .map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))
      .join('; ') || 'Invalid input'
  );
}

/** Each distinct problem of a failed parse, with its field's path (`''` for the whole input). */
export function fieldErrors(error: z.ZodError): Array<{ field: string; message: string }> {
  const seen = new Set<string>();
  const out: Array<{ field: string; message: string }> = [];
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.');
    const key = `${field}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, message: issue.message });
  }
  return out;
}
