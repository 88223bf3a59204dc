import type { ZodType } from 'zod';

/**
 * An antd form rule from a contracts schema: the field's first problem, in the schema's own words
 * (SPEC §5's messages live in @nrad/contracts).
 */
export function zodRule(schema: ZodType) {
  return {
    validator: async (_rule: unknown, value: unknown) => {
      const result = schema.safeParse(value ?? '');
      if (!result.success) throw new Error(result.error.issues[0]?.message ?? 'Invalid value');
    },
  };
}
