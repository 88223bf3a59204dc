/**
 * A search in the address bar: the filters of the last search run are the query string of
 * /search, so Back from a record shows that search again and a search can be bookmarked or sent as
 * a link. Parameters are named as SPEC §7's search filters and hold what the form sends (dates
 * YYYY-MM-DD, amounts as the form's decimal strings); a search with no filter at all is `?all=true`,
 * so that it differs from plain /search (nothing searched yet).
 */
import { COUNTRIES, type RecordSearch, RecordSearchSchema } from '@nrad/contracts';

export const SEARCH_PATH = '/search';

/** Marks a search run with no filter (every record of the agency). */
export const ALL_PARAM = 'all';

/**
 * The filters the form can hold, in the form's order (that of the query string). SPEC §7's
 * `amount` (case + seized + confiscated) has no field on the form, so it is not read from a link
 * either: a filter nobody can see or clear would narrow the results unnoticed.
 */
export const URL_FILTERS = [
  'freeText',
  'incidentNumber',
  'suspectName',
  'suspectDob',
  'incidentDate',
  'caseAmount',
  'seizedAmount',
  'confiscatedAmount',
  'crimeType',
  'country',
  'cyberAssisted',
] as const satisfies readonly (keyof RecordSearch)[];

type UrlFilter = (typeof URL_FILTERS)[number];
const AMOUNTS: readonly UrlFilter[] = ['caseAmount', 'seizedAmount', 'confiscatedAmount'];

/**
 * One parameter as the form would hold it, or undefined when it is not a valid value of its filter
 * (checked with the contracts' schema, the records service's own).
 */
function parseParam(name: UrlFilter, raw: string): string | true | undefined {
  const value = raw.trim();
  if (name === 'cyberAssisted') {
    // The box ticked is the only filter the form can express ("false" is no filter, not "not cyber").
    return value === 'true' ? true : undefined;
  }
  const checked = RecordSearchSchema.shape[name].safeParse(value);
  if (!checked.success || checked.data === undefined) return undefined;
  // An amount stays as written ("10", "2500.5"): what the form sends, so the request is the same.
  if (AMOUNTS.includes(name)) return value;
  if (name === 'country') {
    // The form's Nexus Country is a fixed list; the service compares countries ignoring case.
    const wanted = String(checked.data).toLowerCase();
    return COUNTRIES.find((c) => c.toLowerCase() === wanted);
  }
  return String(checked.data);
}

/**
 * The search a query string asks for: its valid filters (unknown, repeated and invalid parameters
 * are dropped one by one), `{}` for `?all=true`, or null when it asks for no search.
 */
export function filtersFromQuery(query: string): RecordSearch | null {
  const params = new URLSearchParams(query);
  const filters: Record<string, string | true> = {};
  for (const name of URL_FILTERS) {
    const values = params.getAll(name);
    if (values.length !== 1) continue; // absent, or ambiguous
    const value = parseParam(name, values[0] ?? '');
    if (value !== undefined) filters[name] = value;
  }
  // Each value passed its own field's schema; the whole object is checked once more all the same
  // (should the schema ever gain a rule across fields, nothing it refuses is sent).
  if (!RecordSearchSchema.safeParse(filters).success) return null;
  if (Object.keys(filters).length > 0) return filters as RecordSearch;
  return params.getAll(ALL_PARAM).length === 1 && params.get(ALL_PARAM) === 'true' ? {} : null;
}

/** The query string of a search (without "?"): its filters, `all=true` for none; "" for no search. */
export function queryOf(filters: RecordSearch | null): string {
  if (filters === null) return '';
  const params = new URLSearchParams();
  for (const name of URL_FILTERS) {
    const value = filters[name];
    if (value === undefined || value === null || value === '' || value === false) continue;
    params.set(name, String(value));
  }
  return params.toString() || `${ALL_PARAM}=true`;
}

/** The address of a search: /search?… (or plain /search for none). */
export function searchUrl(filters: RecordSearch | null): string {
  const query = queryOf(filters);
  return query ? `${SEARCH_PATH}?${query}` : SEARCH_PATH;
}
