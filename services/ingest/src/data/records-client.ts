import {
  DropdownOptionSchema,
  type Identity,
  REQUEST_ID_HEADER,
  type RecordImportPlan,
  type RecordImportPlanRequest,
  RecordImportPlanSchema,
  type RecordImportRequest,
  type RecordImportResponse,
  RecordImportResponseSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { fetchAs, type ServiceRequestInit } from '@nrad/service-kit';

/** What the ingest service asks of the records service. */
export interface RecordsApi {
  /**
   * Creates rows as the uploader (idempotent by item key); outcomes in the items' order. The upload
   * request's id goes along (X-Request-Id), so the records service's audit events name it.
   */
  importRows(
    owner: UserIdentity,
    items: RecordImportRequest['items'],
    requestId?: string | null,
  ): Promise<RecordImportResponse['results']>;
  /**
   * Where an upload must stop, asked once before its rows are imported (docs/adr/0015): the rows
   * it will send with their incident numbers, in row order. The same upload's plan asked again is
   * the same.
   */
  planImport(
    owner: UserIdentity,
    uploadId: string,
    rows: RecordImportPlanRequest['rows'],
    requestId?: string | null,
  ): Promise<RecordImportPlan>;
  /** The option values of a list (`source`, `country`) as the user sees them. */
  options(user: UserIdentity, type: 'source' | 'country'): Promise<string[]>;
}

/** The records service over HTTP, vouched for with identity tokens signed with the shared secret. */
export function recordsClient(baseUrl: string, secret: string, timeoutMs = 120_000): RecordsApi {
  const call = async (path: string, identity: Identity, init: ServiceRequestInit = {}) => {
    const res = await fetchAs(identity, secret, new URL(path, baseUrl), init, timeoutMs);
    if (!res.ok) throw new Error(`records service answered ${res.status} to ${init.method ?? 'GET'} ${path}`);
    return res.json() as Promise<unknown>;
  };
  return {
    async importRows(owner, items, requestId) {
      const body = JSON.stringify({ owner, items } satisfies RecordImportRequest);
      const answer = await call(
        '/internal/records/import',
        { kind: 'service', service: 'ingest' },
        { method: 'POST', body, ...(requestId ? { headers: { [REQUEST_ID_HEADER]: requestId } } : {}) },
      );
      return RecordImportResponseSchema.parse(answer).results;
    },
    async planImport(owner, uploadId, rows, requestId) {
      const body = JSON.stringify({ owner, uploadId, rows } satisfies RecordImportPlanRequest);
      const answer = await call(
        '/internal/records/import-plan',
        { kind: 'service', service: 'ingest' },
        { method: 'POST', body, ...(requestId ? { headers: { [REQUEST_ID_HEADER]: requestId } } : {}) },
      );
      return RecordImportPlanSchema.parse(answer);
    },
    async options(user, type) {
      const answer = DropdownOptionSchema.array().parse(await call(`/api/dropdown-options/${type}`, user));
      return answer.map((o) => o.value);
    },
  };
}
