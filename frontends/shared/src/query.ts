import { QueryClient, type QueryFunction } from '@tanstack/react-query';
import { apiRequest } from './api.ts';

/** The default query: a GET on the query key's segments joined with '/' (SPEC §7). */
export const defaultQueryFn: QueryFunction = ({ queryKey }) => apiRequest('GET', queryKey.join('/'));

/**
 * The query client of the whole app (one, shared by the shell and every remote): no retries, no
 * refetch on window focus, no polling, and cached data never stale unless a query says otherwise.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        queryFn: defaultQueryFn,
        retry: false,
        refetchOnWindowFocus: false,
        refetchInterval: false,
        staleTime: Number.POSITIVE_INFINITY,
      },
      mutations: { retry: false },
    },
  });
}
