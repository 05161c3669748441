import { SvcApiError, type ConsoleSession, type SignInRequest } from '@svc/client';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { client } from '../../../lib/client';

export const sessionKey = ['session'] as const;

/**
 * Forgets everything read under the session before, and keeps the new session: the session's own query stays in
 * the cache (its observers, the pages that show the sign-in's next step, see the new one at once).
 */
export function startedSession(queryClient: QueryClient, session: ConsoleSession): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
  queryClient.setQueryData(sessionKey, session);
}

/** The signed-in session (null when signed out). Reading it also gives the SDK the session's CSRF token. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async (): Promise<ConsoleSession | null> => {
      try {
        return await client.session.current();
      } catch (error) {
        if (error instanceof SvcApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The signed-in session's scopes (its user's role's), as the session answer says them; empty when signed out. */
export function useSessionScopes(): readonly string[] {
  return useSession().data?.scopes ?? [];
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (credentials: SignInRequest) => {
      // A locked sign-in (429 SIGN_IN_LOCKED) is answered at once: the SDK does not wait it out.
      return client.session.signIn(credentials);
    },
    // Nothing read under another session survives a sign-in (signed in, or halfway).
    onSuccess: (session) => startedSession(queryClient, session),
  });
}

/** Ends the session on the server, forgets everything read under it, and shows the sign-in page. */
export function useSignOut() {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  return useMutation({
    mutationFn: async () => {
      try {
        await client.session.signOut();
      } catch (error) {
        // Already ended (expired, or signed out in another tab): signed out all the same.
        if (!(error instanceof SvcApiError && error.status === 401)) throw error;
      }
    },
    onSuccess: () => {
      navigate('/sign-in?signed_out=1');
      queryClient.clear();
      queryClient.setQueryData(sessionKey, null);
    },
  });
}

export function useSetPassword() {
  return useMutation({
    mutationFn: (input: { token: string; password: string }) => client.session.setPassword(input),
  });
}
