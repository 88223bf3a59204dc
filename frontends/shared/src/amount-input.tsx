import { MoneySchema } from '@nrad/contracts';
import { type FormRule, InputNumber, type InputNumberProps } from 'antd';

/**
 * An amount field (SPEC §5, §9): US dollars, step 0.01, two decimals, kept as a decimal string (no
 * float rounding on the way to the API). Every record form and filter uses it, with AMOUNT_RULES on
 * its Form.Item. A negative amount is not clamped: "-500" stays what was typed, so the rule can say
 * why it is refused instead of the field silently turning it into 0.00.
 */
export function AmountInput(props: InputNumberProps<string>) {
  return <InputNumber<string> stringMode step="0.01" precision={2} prefix="$" style={{ width: '100%' }} {...props} />;
}

/**
 * The amount rule of the contracts (what the records service answers 400 to: negative, more than 2
 * decimals or 12 digits), checked on the field as it changes, with the contracts' message as a
 * sentence ("Must be a non-negative amount with at most 2 decimals and 12 digits"). Empty is 0.
 */
export const AMOUNT_RULES: FormRule[] = [
  {
    validator: async (_rule, value: string | number | null | undefined) => {
      const checked = MoneySchema.safeParse(value ?? '');
      if (checked.success) return;
      const message = checked.error.issues[0]?.message ?? 'must be an amount';
      throw new Error(message.charAt(0).toUpperCase() + message.slice(1));
    },
  },
];
