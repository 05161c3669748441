import type { BulkCodingItem, RecordSearchQuery } from '@svc/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** Records a grid page holds: 200 records (at least 200 lines, and the most one suggestions request takes). */
export const GRID_PAGE_RECORDS = 200;

/** One page of the grid: records under review, their economic lines only (single entry), oldest posted first. */
export function useGridPage(query: RecordSearchQuery) {
  return useQuery({
    queryKey: queryKeys.search({ grid: true, ...query }),
    queryFn: ({ signal }) => client.review.search(query, { signal }),
    placeholderData: keepPreviousData,
    // The grid holds edits over what it read: a read in the background must not move rows under the user.
    refetchOnWindowFocus: false,
  });
}

/** The suggestions of the page's records (one request for the page), read once per page. */
export function useGridSuggestions(recordIds: readonly string[]) {
  return useQuery({
    queryKey: ['records', 'suggestions', recordIds],
    queryFn: ({ signal }) => client.suggestions.list(recordIds, { signal }),
    enabled: recordIds.length > 0,
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });
}

/** Saves every changed record in one request; each record is saved or refused on its own. */
export function useBulkCoding() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (items: BulkCodingItem[]) => client.review.codeRecords(items),
    onSuccess: async () => {
      // Not the grid's own page (its rows take the answer): the record pages, the queue and the overview.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['records', 'detail'] }),
        queryClient.invalidateQueries({ queryKey: ['records', 'history'] }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}

/** Moves the selected records, all or nothing (the grid's Approve selected: a refusal names each record). */
export function useMoveRecords() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (move: Parameters<typeof client.review.moveRecords>[0]) => client.review.moveRecords(move),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.records }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}
