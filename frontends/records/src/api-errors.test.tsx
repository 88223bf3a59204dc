import { ERROR_CODES } from '@nrad/contracts';
import { ApiError, Form, type FormInstance, Input } from '@nrad/shared';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { showServerProblems } from './api-errors.ts';
import type { RecordFormValues } from './record-form.tsx';

const answer = (status: number, message: string, code: string) =>
  new ApiError(status, JSON.stringify({ message, code }), '');

/** A form with the two fields, as the record forms hold them. */
function formOnScreen(): FormInstance<RecordFormValues> {
  let instance: FormInstance<RecordFormValues> | undefined;
  function Fields() {
    const [form] = Form.useForm<RecordFormValues>();
    instance = form;
    return (
      <Form form={form}>
        <Form.Item name="incidentNumber">
          <Input />
        </Form.Item>
        <Form.Item name="suspectName">
          <Input />
        </Form.Item>
      </Form>
    );
  }
  render(<Fields />);
  return instance as FormInstance<RecordFormValues>;
}

describe('showServerProblems', () => {
  it('puts a taken number and the incident-number budget’s 429 on the incident number, and a validation on its field', () => {
    const form = formOnScreen();
    const budget = 'Too many incident numbers already used by other agencies. Try again after 14:05 UTC.';
    expect(showServerProblems(form, answer(429, budget, ERROR_CODES.rateLimited))).toBe(true);
    expect(form.getFieldError('incidentNumber')).toEqual([budget]);
    const taken = answer(409, 'Incident number already exists', ERROR_CODES.incidentNumberTaken);
    expect(showServerProblems(form, taken)).toBe(true);
    expect(form.getFieldError('incidentNumber')).toEqual(['Incident number already exists']);
    expect(showServerProblems(form, answer(400, 'suspectName: must be text', ERROR_CODES.validation))).toBe(true);
    expect(form.getFieldError('suspectName')).toHaveLength(1);
    expect(showServerProblems(form, answer(500, 'The service failed', ERROR_CODES.internal))).toBe(false);
  });
});
