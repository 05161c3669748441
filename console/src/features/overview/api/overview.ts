import { useQuery } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';

export function useOverview() {
  return useQuery({ queryKey: queryKeys.overview, queryFn: () => client.review.overview() });
}
