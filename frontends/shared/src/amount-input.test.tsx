import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { AMOUNT_RULES, AmountInput } from './amount-input.tsx';
import { Button, Form } from './ui-core.ts';

const MESSAGE = 'Must be a non-negative amount with at most 2 decimals and 12 digits';

function AmountForm({ onFinish }: { onFinish: (values: { amount?: string }) => void }) {
  return (
    <Form layout="vertical" onFinish={onFinish} initialValues={{ amount: '0' }}>
      <Form.Item label="Case Amount" name="amount" rules={AMOUNT_RULES}>
        <AmountInput />
      </Form.Item>
      <Button htmlType="submit">Save</Button>
    </Form>
  );
}

describe('an amount field', () => {
  it('keeps a negative amount as typed and refuses it under the field; the form is not submitted', async () => {
    const user = userEvent.setup();
    const onFinish = vi.fn();
    render(<AmountForm onFinish={onFinish} />);
    const input = screen.getByLabelText('Case Amount');
    await user.clear(input);
    await user.type(input, '-500');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(MESSAGE)).toBeInTheDocument();
    expect(input).toHaveValue('-500.00');
    expect(onFinish).not.toHaveBeenCalled();

    await user.clear(input);
    await user.type(input, '1234.5');
    await waitFor(() => expect(screen.queryByText(MESSAGE)).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onFinish).toHaveBeenCalledWith({ amount: expect.stringMatching(/^1234\.50?$/) }));
  });

  it('takes what the records service takes: empty is 0; negative, 3 decimals or 13 digits in all are refused', async () => {
    const validator = AMOUNT_RULES[0] as { validator: (rule: unknown, value: unknown) => Promise<void> };
    for (const ok of [undefined, null, '', '0', '0.00', '12.5', '9999999999.99']) {
      await expect(validator.validator({}, ok), String(ok)).resolves.toBeUndefined();
    }
    for (const refused of ['-500', '-0.01', '1.234', '10000000000']) {
      await expect(validator.validator({}, refused), refused).rejects.toThrow(MESSAGE);
    }
  });
});
