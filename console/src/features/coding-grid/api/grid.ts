import type { BulkCodingItem, BulkMoveResponse, RecordSearchQuery } from '@svc/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import type { ReviewStatus } from '../../../lib/labels';
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

/** A refusal met after the records had made the first steps (they are in `at` now, at their new versions). */
export class MoveStopped extends Error {
  constructor(
    readonly cause: unknown,
    readonly at: ReviewStatus,
    readonly records: number,
  ) {
    super(`Stopped in ${at}`);
  }
}

/**
 * Moves the selected records through `steps`, each step all or nothing, each record at the version the step before
 * answered (the grid's Approve selected; in Prepare, Submit and approve selected: to REVIEW, then to
 * READY_FOR_EXPORT, as the record page's "Submit and approve" does). A refusal names each record; one after a step
 * has moved them is a MoveStopped.
 */
export function useMoveRecords() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (move: { steps: readonly ReviewStatus[]; records: { id: string; version: number }[] }) => {
      let records = move.records;
      let answer: BulkMoveResponse = { items: [] };
      for (const [i, step] of move.steps.entries()) {
        try {
          answer = await client.review.moveRecords({ review_status: step, records });
        } catch (error) {
          if (i === 0) throw error;
          throw new MoveStopped(error, move.steps[i - 1]!, records.length);
        }
        records = answer.items.map((item) => ({ id: item.id, version: item.version }));
      }
      return answer;
    },
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.records }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}
