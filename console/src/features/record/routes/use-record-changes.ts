import { useState } from 'react';
import { isApiError } from '../../../lib/errors';
import { useMergeLines, useMoveRecord, useSaveCoding, useSplitLine, type RecordViews } from '../api/record';
import { useCodingAids } from './use-coding-aids';

/**
 * Everything that changes the record from its page (save coding, accept suggestions, move, split, merge), and
 * what the page says about it: the last success (notice), a version conflict from any of them, and the reload
 * that follows one (a fresh form over the current version; the user's draft comes back over it).
 */
export function useRecordChanges(id: string, userId: string, views: RecordViews, canCode: boolean) {
  const save = useSaveCoding(id);
  const move = useMoveRecord(id);
  const split = useSplitLine(id);
  const merge = useMergeLines(id);
  const aids = useCodingAids(id, userId, views, canCode);
  const accept = aids.accept;
  const [notice, setNotice] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [reloading, setReloading] = useState(false);

  const all = [save, move, split, merge, accept];
  const conflict = all.map((m) => m.error).find((e) => isApiError(e, 'VERSION_CONFLICT')) ?? null;
  const unlessConflict = (error: Error | null) => (error && !conflict ? error : null);
  const resetAll = () => {
    setNotice(null);
    for (const m of all) m.reset();
  };
  /** After a change: a fresh form over the record as it is now, and the words saying what happened. */
  const changed = (words: string) => {
    setGeneration((g) => g + 1);
    setNotice(words);
  };

  return {
    save,
    move,
    split,
    merge,
    accept,
    aids,
    notice,
    generation,
    reloading,
    conflict,
    saveError: unlessConflict(save.error),
    acceptError: unlessConflict(accept.error),
    moveError: unlessConflict(move.error),
    linesError: unlessConflict(split.error ?? merge.error),
    resetAll,
    changed,
    /**
     * The current version first, then a fresh form over it and the notice gone. Keeping the user's edits (`keep`),
     * their draft is sent first and comes back over the current version (a save then sends the current version);
     * otherwise the draft is deleted and the form shows the current version alone. When the record could not be read
     * again, the form and the notice stay as they are (the page says the read failed): the user tries again.
     */
    async reload(onReload: () => Promise<{ isError: boolean }>, keep = true) {
      setReloading(true);
      let reloaded = false;
      try {
        if (keep) await aids.beforeReload();
        else await aids.discardDraft();
        reloaded = !(await onReload()).isError;
      } finally {
        if (reloaded) {
          setGeneration((g) => g + 1);
          resetAll();
        }
        setReloading(false);
      }
    },
  };
}

export type RecordChanges = ReturnType<typeof useRecordChanges>;
