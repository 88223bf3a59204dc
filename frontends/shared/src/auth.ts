import { type PublicUser, routes, type UserResponse } from '@nrad/contracts';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from './api.ts';

export const USER_QUERY_KEY = [routes.session.user.path] as const;

/**
 * The signed-in user (SPEC §4: authenticated when GET /api/auth/user answers without error; never
 * retried, zero stale time). `user` is null when nobody is signed in (the answer is 401).
 */
export function useCurrentUser(): { user: PublicUser | null; isLoading: boolean; error: unknown } {
  const query = useQuery<UserResponse | null>({
    queryKey: USER_QUERY_KEY,
    staleTime: 0,
    retry: false,
  });
  const signedOut = query.error instanceof ApiError && query.error.status === 401;
  return {
    user: query.data?.user ?? null,
    isLoading: query.isLoading,
    error: signedOut ? null : query.error,
  };
}
