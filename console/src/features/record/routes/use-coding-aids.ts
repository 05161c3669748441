import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { queryKeys } from '../../../lib/query-keys';
import { useDraft, useDraftSync } from '../api/drafts';
import type { RecordViews } from '../api/record';
import { byCell, useAcceptSuggestions, useSuggestions } from '../api/suggestions';

/**
 * What helps code the record beyond the form itself: the suggested values of its empty cells (and accepting them
 * all), and the user's draft kept on the server (restored when the page opens, kept while editing, cleared on
 * save and on discard).
 */
export function useCodingAids(id: string, userId: string, views: RecordViews, canCode: boolean) {
  const queryClient = useQueryClient();
  const version = views.record.version;
  const suggestions = useSuggestions(id, version, canCode);
  const accept = useAcceptSuggestions(id);
  const draft = useDraft(id, userId, canCode);
  const sync = useDraftSync(id, userId);
  const restored = draft.data ?? null;
  const { adopt } = sync;
  useEffect(() => {
    if (restored) adopt(restored);
  }, [restored, adopt]);

  const cells = suggestions.data && suggestions.data.version === version ? byCell(suggestions.data.suggestions) : null;
  return {
    accept,
    sync,
    /** The page's record is about to be read again (a reload after a conflict): the draft first, so it comes back. */
    async beforeReload() {
      await sync.flush();
      await queryClient.invalidateQueries({ queryKey: queryKeys.draft(id) });
    },
    /** The user chose the current version over their edits: their draft is deleted, and read again as none. */
    async discardDraft() {
      await sync.clear();
      await queryClient.invalidateQueries({ queryKey: queryKeys.draft(id) });
    },
    draftLoading: canCode && draft.isPending,
    extra: {
      suggestions: cells ?? undefined,
      restored,
      onDraftChange: sync.update,
      draftStatus: sync.status,
      onDiscard: () => void sync.clear(),
    },
  };
}
