import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

const CONNECTED_APPS = ['connected-apps'] as const;

/** The partner apps connected to the account. */
export function useConnectedApps() {
  return useQuery({
    queryKey: CONNECTED_APPS,
    queryFn: ({ signal }) => client.partnerApps.listConnected({ signal }),
  });
}

/** Revokes an app's connection: its tokens stop working at once. */
export function useRevokeConnectedApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (appId: string) => client.partnerApps.revoke(appId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: CONNECTED_APPS }),
  });
}
