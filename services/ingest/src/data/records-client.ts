import {
  DropdownOptionSchema,
  REQUEST_ID_HEADER,
  type RecordImportPlan,
  type RecordImportPlanRequest,
  RecordImportPlanSchema,
  type RecordImportRequest,
  type RecordImportResponse,
  RecordImportResponseSchema,
  type UserIdentity,
} from '@nrad/contracts';
import {
  type Caller,
  currentIdentityToken,
  fetchAs,
  type IdentitySigner,
  type ServiceRequestInit,
} from '@nrad/service-kit';

/** What the ingest service asks of the records service. */
export interface RecordsApi {
  /**
   * Creates rows as the uploader, on the gateway's `grant` for the upload (idempotent by item
   * key); outcomes in the items' order. Rows of
   * `check` are only checked, never created: their problems in `checked`. The upload request's id
   * goes along (X-Request-Id), so the records service's audit events name it.
   */
  importRows(
    grant: string,
    owner: UserIdentity,
    items: RecordImportRequest['items'],
    requestId?: string | null,
    check?: RecordImportRequest['items'],
  ): Promise<RecordImportResponse>;
  /**
   * Where an upload must stop, asked once before its rows are imported (docs/adr/0015): the rows
   * it will send with their incident numbers, in row order. The same upload's plan asked again is
   * the same.
   */
  planImport(
    grant: string,
    owner: UserIdentity,
    uploadId: string,
    rows: RecordImportPlanRequest['rows'],
    requestId?: string | null,
  ): Promise<RecordImportPlan>;
  /**
   * The option values of a list (`source`, `country`) as the user sees them, asked during their
   * request (on their behalf, with the gateway's token of the request).
   */
  options(user: UserIdentity, type: 'source' | 'country'): Promise<string[]>;
}

/**
 * The records service over HTTP, each request signed with the ingest service's own key
 * (identity.ts), always on the user's behalf: on the internal import paths with the gateway's
 * grant for the upload (the records service takes the uploader from it, issue 37), for what a user
 * may read with the request's own token.
 */
export function recordsClient(baseUrl: string, signer: IdentitySigner, timeoutMs = 120_000): RecordsApi {
  const call = async (path: string, as: Caller, init: ServiceRequestInit = {}) => {
    const res = await fetchAs(as, signer, new URL(path, baseUrl), init, timeoutMs);
    if (!res.ok) throw new Error(`records service answered ${res.status} to ${init.method ?? 'GET'} ${path}`);
    return res.json() as Promise<unknown>;
  };
  /** A POST of the upload's job to an internal import path, on the uploader's behalf with its grant. */
  const postAsUploader = (path: string, grant: string, body: object, requestId: string | null | undefined) =>
    call(
      path,
      { kind: 'on-behalf', proof: grant },
      {
        method: 'POST',
        body: JSON.stringify(body),
        ...(requestId ? { headers: { [REQUEST_ID_HEADER]: requestId } } : {}),
      },
    );
  return {
    async importRows(grant, owner, items, requestId, check) {
      const body = { owner, items, ...(check?.length ? { check } : {}) } satisfies RecordImportRequest;
      return RecordImportResponseSchema.parse(await postAsUploader('/internal/records/import', grant, body, requestId));
    },
    async planImport(grant, owner, uploadId, rows, requestId) {
      const body = { owner, uploadId, rows } satisfies RecordImportPlanRequest;
      return RecordImportPlanSchema.parse(
        await postAsUploader('/internal/records/import-plan', grant, body, requestId),
      );
    },
    async options(_user, type) {
      const proof = currentIdentityToken();
      if (!proof) throw new Error('the option lists are asked during a user’s request');
      const path = `/api/dropdown-options/${type}`;
      const answer = DropdownOptionSchema.array().parse(await call(path, { kind: 'on-behalf', proof }));
      return answer.map((o) => o.value);
    },
  };
}
