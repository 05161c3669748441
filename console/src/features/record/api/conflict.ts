import type { RecordEvent } from '@svc/client';
import { useQuery } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import { conflictChanges, type ConflictChanges } from '../conflict-words';
import type { RecordViews } from './record';

/**
 * After a version conflict: the record as it is now and its history since the version the page shows, compared
 * with that version (what changed, who changed it). Read beside the page's record, which stays at the version the
 * user edited until they choose to reload or keep their edits.
 */
export function useConflictChanges(id: string, seen: RecordViews, me: string, enabled: boolean) {
  return useQuery({
    queryKey: ['record-conflict', id, seen.record.version] as const,
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async ({ signal }): Promise<ConflictChanges> => {
      const current = await client.review.getForReview(id, { signal });
      const events: RecordEvent[] = [];
      let cursor: string | null = null;
      do {
        const page = await client.review.history(id, cursor ? { limit: 100, cursor } : { limit: 100 }, { signal });
        events.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      return conflictChanges(seen.singleEntry, current.single_entry, events, me);
    },
  });
}
