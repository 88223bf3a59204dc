/**
 * What the record screens (records and search remotes, later the dashboard) share about records:
 * query keys, so a change on one screen refreshes the others, and the reads every one of them makes.
 */
import {
  type CaseRecord,
  type DropdownOption,
  LINKING_PENDING,
  LINKING_STATE_HEADER,
  type RecordLinkView,
  routes,
} from '@nrad/contracts';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { callApi, callApiWithHeaders } from './api.ts';
import { formatUsd, sumAmounts } from './format.ts';

/** Every query about records starts with this key; invalidate it after any record change. */
export const RECORDS_KEY = routes.records.list.path;
export const recordKey = (id: string) => [RECORDS_KEY, id] as const;
export const recordLinksKey = (id: string) => [RECORDS_KEY, id, 'links'] as const;
/** The possible matches' list and the navigation's count of them (issue 36): read again after a decision. */
export const POSSIBLE_MATCHES_KEY = routes.linking.possibleMatches.path;
export const optionsKey = (type: 'source' | 'country') => ['/api/dropdown-options', type] as const;

/** After a create, edit, delete, restore or link: every record query is read again when next shown. */
export function recordsChanged(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({ queryKey: [RECORDS_KEY] });
}

/**
 * One record (GET /api/records/{id}); a missing or another agency's record fails with 404. For the
 * edit form (`purpose` `edit`) it asks `?purpose=edit`, so the audit trail tells the form's read
 * from a read of the details (issue 21); under the record's key, so a change refreshes both.
 */
export function useRecord(id: string, purpose: 'read' | 'edit' = 'read') {
  return useQuery<CaseRecord>({
    queryKey: purpose === 'edit' ? [...recordKey(id), 'edit'] : recordKey(id),
    ...(purpose === 'edit'
      ? { queryFn: () => callApi(routes.records.get, { params: { id }, query: { purpose: 'edit' } }) }
      : {}),
    staleTime: 0,
  });
}

/** How often a record's links are asked again while linking is in progress (ms). */
export const LINKING_PENDING_POLL_MS = 3000;

/**
 * A record's links, each with the other record (GET /api/records/{id}/links), and whether linking
 * is still in progress (the linking service has not seen the record yet: no links yet, asked
 * again every LINKING_PENDING_POLL_MS until it has).
 */
export function useRecordLinks(id: string, enabled = true) {
  return useQuery<{ links: RecordLinkView[]; pending: boolean }>({
    queryKey: [...recordLinksKey(id), 'state'],
    queryFn: async () => {
      const { data, headers } = await callApiWithHeaders(routes.linking.links, { params: { id } });
      return { links: data, pending: headers.get(LINKING_STATE_HEADER) === LINKING_PENDING };
    },
    refetchInterval: (query) => (query.state.data?.pending ? LINKING_PENDING_POLL_MS : false),
    staleTime: 0,
    enabled,
  });
}

/** An option list ADMIN edits: Source of Record or Country (GET /api/dropdown-options/{type}). */
export function useOptions(type: 'source' | 'country') {
  return useQuery<DropdownOption[]>({ queryKey: optionsKey(type) });
}

/** A record's Amount in the lists (SPEC §2 Search): case + seized + confiscated, in US dollars. */
export const recordAmount = (r: Pick<CaseRecord, 'caseAmount' | 'seizedAmount' | 'confiscatedAmount'>) =>
  formatUsd(sumAmounts(r.caseAmount, r.seizedAmount, r.confiscatedAmount));
