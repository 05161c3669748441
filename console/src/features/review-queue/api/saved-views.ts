import type { SavedViewCreate, SavedViewUpdate } from '@svc/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** The signed-in user's saved views of the queue, by name. */
export function useSavedViews() {
  return useQuery({
    queryKey: queryKeys.savedViews,
    queryFn: ({ signal }) => client.savedViews.list({ signal }),
  });
}

export function useCreateSavedView() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SavedViewCreate) => client.savedViews.create(input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.savedViews }),
  });
}

export function useUpdateSavedView() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: SavedViewUpdate }) => client.savedViews.update(id, change),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.savedViews }),
  });
}

export function useDeleteSavedView() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => client.savedViews.delete(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.savedViews }),
  });
}
