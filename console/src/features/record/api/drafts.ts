import type { RecordDraft, RecordDraftRequest } from '@svc/client';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isUnauthorized, shownError } from '../../../lib/errors';
import { sessionKey } from '../../auth/api/session';
import { client } from '../../../lib/client';
import { queryKeys } from '../../../lib/query-keys';
import { draftBackup } from './draft-backup';

/** What the form has unsaved: the cells edited, and the record's version the edits started from. */
export type DraftContent = RecordDraftRequest;

/**
 * The signed-in user's draft of the record's coding, read once when the page opens (null: none). A copy the server
 * did not take before (draft-backup.ts) is sent first: it is the newer.
 */
export function useDraft(id: string, userId: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.draft(id),
    queryFn: async ({ signal }) => {
      const unsent = draftBackup.read(userId, id);
      if (unsent) {
        const stored = await client.drafts.put(id, unsent, { signal });
        draftBackup.drop(userId, id);
        return stored;
      }
      return client.drafts.get(id, { signal });
    },
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
}

/** How the draft stands on the server, for the words under the form. */
export type DraftStatus =
  { kind: 'idle' } | { kind: 'kept'; at: string } | { kind: 'failed'; message: string } | { kind: 'deleted' };

const DELAY_MS = 400;
/** Differs from every draft's key: what the server has is not known. */
const UNSENT = '\u0000';
const keyOf = (content: DraftContent | null) => (content && content.lines.length > 0 ? JSON.stringify(content) : '');

/**
 * Keeps the form's unsaved coding as the user's draft on the server: `update` after each change (sent once the
 * edits pause, and at once when the page goes away), `clear` once the coding is saved or discarded, `adopt` for the
 * draft the page restored (already stored), `flush` before a reload reads it back. Writes go one at a time, in order.
 */
export function useDraftSync(id: string, userId: string) {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<DraftStatus>({ kind: 'idle' });
  const latest = useRef<DraftContent | null>(null);
  const sent = useRef('');
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const chain = useRef<Promise<void>>(Promise.resolve());

  const enqueue = useCallback(
    (write: () => Promise<DraftStatus>) => {
      chain.current = chain.current.then(async () => {
        try {
          const next = await write();
          setStatus(next);
        } catch (error) {
          setStatus({ kind: 'failed', message: shownError(error).message });
          // The session ended: the console asks the user to sign in again (and brings them back here).
          if (isUnauthorized(error)) void queryClient.invalidateQueries({ queryKey: sessionKey });
        }
      });
      return chain.current;
    },
    [queryClient],
  );

  const flush = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    const content = latest.current;
    const key = keyOf(content);
    if (key === sent.current) return chain.current;
    sent.current = key;
    if (!content || key === '') {
      draftBackup.drop(userId, id);
      return enqueue(async () => {
        await client.drafts.delete(id);
        return { kind: 'deleted' };
      });
    }
    return enqueue(async () => {
      try {
        const stored = await client.drafts.put(id, content);
        draftBackup.drop(userId, id);
        queryClient.setQueryData<RecordDraft | null>(queryKeys.draft(id), stored);
        return { kind: 'kept', at: stored.updated_at };
      } catch (error) {
        // Not taken: the tab keeps it until the server does, and the next flush tries again.
        draftBackup.keep(userId, id, content);
        if (sent.current === key) sent.current = UNSENT;
        throw error;
      }
    });
  }, [enqueue, id, queryClient, userId]);

  const update = useCallback(
    (content: DraftContent) => {
      latest.current = content;
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => void flush(), DELAY_MS);
    },
    [flush],
  );

  const adopt = useCallback((draft: RecordDraft) => {
    sent.current = keyOf({ version: draft.version, lines: draft.lines });
    setStatus({ kind: 'kept', at: draft.updated_at });
  }, []);

  /** The coding was saved or discarded: no draft any more (deleted on the server, forgotten here). */
  const clear = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    latest.current = null;
    sent.current = '';
    draftBackup.drop(userId, id);
    queryClient.setQueryData<RecordDraft | null>(queryKeys.draft(id), null);
    return enqueue(async () => {
      await client.drafts.delete(id);
      return { kind: 'idle' };
    });
  }, [enqueue, id, queryClient, userId]);

  // Leaving the record (another record, another page): what is pending is sent now, not lost.
  useEffect(() => () => void flush(), [flush]);

  return useMemo(() => ({ status, update, adopt, clear, flush }), [status, update, adopt, clear, flush]);
}

export type DraftSync = ReturnType<typeof useDraftSync>;
