import type { RecordSearchQuery } from '@svc/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

/** One page of the review queue's search. */
export function useRecordSearch(query: RecordSearchQuery) {
  return useQuery({
    queryKey: queryKeys.search(query),
    queryFn: () => client.review.search(query),
    placeholderData: keepPreviousData,
  });
}
