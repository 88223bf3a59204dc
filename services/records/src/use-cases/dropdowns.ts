import {
  COUNTRIES,
  DEFAULT_SOURCE_OPTIONS,
  type DropdownOption,
  DropdownTypeSchema,
  UpdateDropdownOptionsSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { notFound, parse } from '@nrad/service-kit';
import type { DropdownRepository } from '../data/dropdowns.ts';

/** The lists a fresh installation starts with (contracts' defaults). */
export const DEFAULT_DROPDOWNS = { source: DEFAULT_SOURCE_OPTIONS, country: COUNTRIES } as const;

function listType(type: string) {
  const parsed = DropdownTypeSchema.safeParse(type);
  if (!parsed.success) throw notFound('Option list not found (use source or country)');
  return parsed.data;
}

export function listOptions(dropdowns: DropdownRepository, type: string): Promise<DropdownOption[]> {
  return dropdowns.list(listType(type));
}

/** Replaces a list (ADMIN; the caller checks): trimmed, blanks dropped, repeats removed. */
export function replaceOptions(
  dropdowns: DropdownRepository,
  admin: UserIdentity,
  type: string,
  body: unknown,
): Promise<DropdownOption[]> {
  const list = listType(type);
  const { values } = parse(UpdateDropdownOptionsSchema, body);
  return dropdowns.replace(list, values, admin.userId);
}
