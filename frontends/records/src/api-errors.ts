import { ERROR_CODES } from '@nrad/contracts';
import { ApiError, type FormInstance } from '@nrad/shared';
import type { RecordFormValues } from './record-form.tsx';

/**
 * Puts what the records service said about a refused record on its fields: "Incident number
 * already exists" on the incident number, and each "<field>: <problem>" of a validation answer on
 * that field. Resolves true when something was placed.
 */
export function showServerProblems(form: FormInstance<RecordFormValues>, error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  const code = errorCode(error);
  const message = error.serverMessage;
  if (!message) return false;
  if (code === ERROR_CODES.incidentNumberTaken) {
    form.setFields([{ name: 'incidentNumber', errors: [message] }]);
    return true;
  }
  if (code !== ERROR_CODES.validation) return false;
  const fields: Array<{ name: keyof RecordFormValues; errors: string[] }> = [];
  for (const part of message.split('; ')) {
    const m = /^([a-zA-Z]+): (.+)$/.exec(part);
    if (m)
      fields.push({ name: m[1] as keyof RecordFormValues, errors: [m[2]!.charAt(0).toUpperCase() + m[2]!.slice(1)] });
  }
  form.setFields(fields);
  return fields.length > 0;
}

/** The `code` of an API error's body. */
export function errorCode(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  try {
    return (JSON.parse(error.body) as { code?: string }).code;
  } catch {
    return undefined;
  }
}
