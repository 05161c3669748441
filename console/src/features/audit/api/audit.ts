import type { AuditEventQuery } from '@svc/client';
import { useInfiniteQuery } from '@tanstack/react-query';
import { client } from '../../../lib/client';

export type AuditFilters = Omit<AuditEventQuery, 'cursor' | 'limit'>;

/** The account's audit log, newest first, 50 entries a page; `fetchNextPage` follows next_cursor while has_next_page. */
export function useAuditLog(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: ['audit-events', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      client.audit.list({ ...filters, limit: 50, ...(pageParam ? { cursor: pageParam } : {}) }, { signal }),
    getNextPageParam: (page) => (page.has_next_page ? (page.next_cursor ?? undefined) : undefined),
  });
}
