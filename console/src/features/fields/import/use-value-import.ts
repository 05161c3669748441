import { useCallback, useEffect, useRef, useState } from 'react';
import { client } from '../../../lib/client';
import { useRefreshValues } from '../api/values';
import type { ImportBatch } from './import-file';
import { describeRefusal, type RefusedBatch } from './refusals';

export interface ImportProgress {
  /** Rows answered so far (created or refused), of `total`. */
  done: number;
  total: number;
  created: number;
  refused: RefusedBatch[];
  /** Rows never sent: the import was stopped. */
  notSent: number;
  state: 'running' | 'finished' | 'stopped';
}

/** An import's own prefix for its batches' Idempotency-Keys: `import-<random>.<batch>`. */
function importKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `import-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Sends a file's batches one after another through the SDK's batch create, each with its own Idempotency-Key
 * (the SDK retries a batch whose answer was lost with the same key, so it is never stored twice). A refused
 * batch changes nothing on the service: the import notes why and goes on with the next one. Stop ends it after
 * the batch in flight; leaving the page stops it too.
 */
export function useValueImport(fieldId: string) {
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const stopRef = useRef(false);
  const refresh = useRefreshValues(fieldId);
  const running = progress?.state === 'running';

  useEffect(
    () => () => {
      stopRef.current = true;
    },
    [],
  );
  // Closing the tab mid-import asks first (the batches already answered stay stored).
  useEffect(() => {
    if (!running) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [running]);

  const start = useCallback(
    async (batches: ImportBatch[]) => {
      stopRef.current = false;
      const key = importKey();
      const total = batches.reduce((n, b) => n + b.rows.length, 0);
      let current: ImportProgress = { done: 0, total, created: 0, refused: [], notSent: 0, state: 'running' };
      setProgress(current);
      for (const batch of batches) {
        if (stopRef.current) break;
        try {
          const answer = await client.fieldValues.create(
            fieldId,
            batch.rows.map((r) => r.item),
            { idempotencyKey: `${key}.${batch.index}` },
          );
          current = {
            ...current,
            done: current.done + batch.rows.length,
            created: current.created + answer.items.length,
          };
        } catch (error) {
          const refusal = describeRefusal(batch, error);
          current = { ...current, done: current.done + batch.rows.length, refused: [...current.refused, refusal] };
          if (refusal.fatal) stopRef.current = true;
        }
        setProgress(current);
      }
      current =
        current.done < total
          ? { ...current, notSent: total - current.done, state: 'stopped' }
          : { ...current, state: 'finished' };
      setProgress(current);
      await refresh();
    },
    [fieldId, refresh],
  );

  const stop = useCallback(() => {
    stopRef.current = true;
  }, []);
  const reset = useCallback(() => setProgress(null), []);

  return { progress, running, start, stop, reset };
}
