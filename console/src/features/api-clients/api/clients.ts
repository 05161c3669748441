import type { ApiClientCreateRequest, ApiClientUpdateRequest } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** The account's API clients, revoked ones included, in creation order. */
export function useApiClients() {
  return useQuery({
    queryKey: queryKeys.apiClients,
    queryFn: ({ signal }) => client.clients.list({ signal }),
  });
}

/** A new client; its secret is in this answer only (the SDK does not retry it: a replay would make another). */
export function useCreateApiClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiClientCreateRequest) => client.clients.create(input),
    // The answer holds the secret: dropped from the cache as soon as the form that asked is gone.
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiClients }),
  });
}

/** Revokes a client: its tokens stop working at once. */
export function useRevokeApiClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (clientId: string) => client.clients.revoke(clientId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiClients }),
  });
}

/** A new secret for a client; the previous one keeps working a day (the service's default). */
export function useRotateApiClientSecret() {
  return useMutation({
    mutationFn: (clientId: string) => client.clients.rotateSecret(clientId),
    // The answer holds the secret: not kept in the cache.
    gcTime: 0,
  });
}

/** Replaces a client's scopes: one taken away leaves its live tokens at once. */
export function useUpdateApiClientScopes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ clientId, scopes }: { clientId: string; scopes: ApiClientUpdateRequest['scopes'] }) =>
      client.clients.update(clientId, { scopes }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiClients }),
  });
}

/** Renames a client ("" for no name). */
export function useRenameApiClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ clientId, name }: { clientId: string; name: string }) => client.clients.update(clientId, { name }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.apiClients }),
  });
}
