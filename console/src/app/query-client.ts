import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isUnauthorized } from '../lib/errors';
import { sessionKey } from '../features/auth/api/session';

/**
 * Server state, keyed by the request. The SDK already retries what is safe to retry (429, 5xx, network), so the
 * queries do not retry again. A 401 anywhere means the session ended: the session becomes null and the pages
 * send the user to sign in.
 */
export function makeQueryClient(): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => onUnauthorized(error) }),
    mutationCache: new MutationCache({ onError: (error) => onUnauthorized(error) }),
    defaultOptions: {
      queries: { retry: false, staleTime: 10_000, refetchOnWindowFocus: true },
      mutations: { retry: false },
    },
  });
  const onUnauthorized = (error: unknown) => {
    if (isUnauthorized(error) && queryClient.getQueryData(sessionKey)) queryClient.setQueryData(sessionKey, null);
  };
  return queryClient;
}
