import type { RecordSearchQuery } from '@svc/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import type { ReviewStatus } from '../../../lib/labels';
import { queryKeys } from '../../../lib/query-keys';

/** One page of the review queue's search. */
export function useRecordSearch(query: RecordSearchQuery) {
  return useQuery({
    queryKey: queryKeys.search(query),
    queryFn: () => client.review.search(query),
    placeholderData: keepPreviousData,
  });
}

export interface BulkMove {
  review_status: ReviewStatus;
  records: { id: string; version: number }[];
}

/** Approve or send back the selected records, all or nothing, each at the version the user saw. */
export function useBulkMove() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (move: BulkMove) => client.review.moveRecords(move),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.records }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}
