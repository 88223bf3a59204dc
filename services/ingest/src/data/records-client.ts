import {
  DropdownOptionSchema,
  IDENTITY_HEADER,
  type RecordImportRequest,
  type RecordImportResponse,
  RecordImportResponseSchema,
  type UserIdentity,
} from '@nrad/contracts';
import { signIdentity } from '@nrad/service-kit';

/** What the ingest service asks of the records service. */
export interface RecordsApi {
  /** Creates rows as the uploader (idempotent by item key); outcomes in the items' order. */
  importRows(owner: UserIdentity, items: RecordImportRequest['items']): Promise<RecordImportResponse['results']>;
  /** The option values of a list (`source`, `country`) as the user sees them. */
  options(user: UserIdentity, type: 'source' | 'country'): Promise<string[]>;
}

/** The records service over HTTP, vouched for with identity tokens signed with the shared secret. */
export function recordsClient(baseUrl: string, secret: string, timeoutMs = 120_000): RecordsApi {
  const call = async (path: string, identity: Parameters<typeof signIdentity>[0], init: RequestInit = {}) => {
    const res = await fetch(new URL(path, baseUrl), {
      ...init,
      headers: {
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        [IDENTITY_HEADER]: await signIdentity(identity, secret),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`records service answered ${res.status} to ${init.method ?? 'GET'} ${path}`);
    return res.json() as Promise<unknown>;
  };
  return {
    async importRows(owner, items) {
      const body = JSON.stringify({ owner, items } satisfies RecordImportRequest);
      const answer = await call(
        '/internal/records/import',
        { kind: 'service', service: 'ingest' },
        { method: 'POST', body },
      );
      return RecordImportResponseSchema.parse(answer).results;
    },
    async options(user, type) {
      const answer = DropdownOptionSchema.array().parse(await call(`/api/dropdown-options/${type}`, user));
      return answer.map((o) => o.value);
    },
  };
}
