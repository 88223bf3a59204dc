import {
  type PublicUser,
  REQUEST_ID_HEADER,
  UserResponseSchema,
  type VerifyCredentialsResponse,
  VerifyCredentialsResponseSchema,
} from '@nrad/contracts';
import { fetchAs, type IdentitySigner } from '@nrad/service-kit';

/** Thrown when the auth service cannot be reached or answers out of contract. */
export class UpstreamUnavailableError extends Error {
  override name = 'UpstreamUnavailableError';
}

/** The gateway's calls to the auth service's internal paths, signed as the gateway itself. */
export function createAuthClient(options: { baseUrl: string; signer: IdentitySigner; timeoutMs?: number }) {
  const call = async (path: string, init: { method: string; body?: unknown; requestId?: string }) => {
    let res: Response;
    try {
      res = await fetchAs(
        { kind: 'self' },
        options.signer,
        new URL(path, options.baseUrl),
        {
          method: init.method,
          headers: init.requestId ? { [REQUEST_ID_HEADER]: init.requestId } : {},
          ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        },
        options.timeoutMs ?? 10_000,
      );
    } catch (err) {
      throw new UpstreamUnavailableError(`auth service unreachable: ${(err as Error).message}`);
    }
    return res;
  };

  return {
    async verifyCredentials(email: string, password: string, requestId?: string): Promise<VerifyCredentialsResponse> {
      const res = await call('/internal/credentials/verify', {
        method: 'POST',
        body: { email, password },
        ...(requestId ? { requestId } : {}),
      });
      if (!res.ok) throw new UpstreamUnavailableError(`auth service answered ${res.status}`);
      return VerifyCredentialsResponseSchema.parse(await res.json());
    },

    /** The current user record, or null when the account no longer exists. */
    async getUser(id: string, requestId?: string): Promise<PublicUser | null> {
      const res = await call(`/internal/users/${encodeURIComponent(id)}`, {
        method: 'GET',
        ...(requestId ? { requestId } : {}),
      });
      if (res.status === 404) return null;
      if (!res.ok) throw new UpstreamUnavailableError(`auth service answered ${res.status}`);
      return UserResponseSchema.parse(await res.json()).user;
    },

    async ready(): Promise<void> {
      const res = await fetch(new URL('/readyz', options.baseUrl), { signal: AbortSignal.timeout(2000) });
      if (!res.ok) throw new Error(`auth not ready (${res.status})`);
    },
  };
}
export type AuthClient = ReturnType<typeof createAuthClient>;
