import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';

const INTEGRATIONS = ['integrations'] as const;

/** The account's integrations, current and past, in creation order (the first 1000: an account has a handful). */
export function useIntegrations() {
  return useQuery({
    queryKey: INTEGRATIONS,
    queryFn: ({ signal }) => client.integrations.list({ limit: 1000 }, { signal }),
  });
}

/** Disconnects (ACTIVE → DISABLED) or reactivates (DISABLED → ACTIVE) an integration. */
export function useIntegrationMove() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (move: { id: string; to: 'DISABLED' | 'ACTIVE' }) =>
      move.to === 'DISABLED' ? client.integrations.disconnect(move.id) : client.integrations.reactivate(move.id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: INTEGRATIONS }),
  });
}
