import { ERROR_CODES } from '@nrad/contracts';
import { ApiError, type FormInstance } from '@nrad/shared';
import { type RecordFormValues, sentence } from './record-form.tsx';

/**
 * Puts what the records service said about a refused record on its fields: "Incident number
 * already exists" on the incident number, the 429 of a user who has met too many numbers held by
 * other agencies there too (it says when to try again: ADR 0015), and each "<field>: <problem>" of
 * a validation answer on that field. Resolves true when something was placed.
 */
export function showServerProblems(form: FormInstance<RecordFormValues>, error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  const message = error.serverMessage;
  if (!message) return false;
  if (error.code === ERROR_CODES.incidentNumberTaken || error.code === ERROR_CODES.rateLimited) {
    form.setFields([{ name: 'incidentNumber', errors: [message] }]);
    return true;
  }
  if (error.code !== ERROR_CODES.validation) return false;
  const fields: Array<{ name: keyof RecordFormValues; errors: string[] }> = [];
  for (const part of message.split('; ')) {
    const m = /^([a-zA-Z]+): (.+)$/.exec(part);
    if (m) fields.push({ name: m[1] as keyof RecordFormValues, errors: [sentence(m[2] as string)] });
  }
  form.setFields(fields);
  return fields.length > 0;
}
