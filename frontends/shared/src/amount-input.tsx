import { InputNumber, type InputNumberProps } from 'antd';

/**
 * An amount field (SPEC §5, §9): US dollars, never negative, step 0.01, two decimals, kept as a
 * decimal string (no float rounding on the way to the API). Every record form and filter uses it.
 */
export function AmountInput(props: InputNumberProps<string>) {
  return (
    <InputNumber<string> stringMode min="0" step="0.01" precision={2} prefix="$" style={{ width: '100%' }} {...props} />
  );
}
