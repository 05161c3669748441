import { BATCH_LIMIT, type FieldValueUpdate } from '@svc/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { client } from '../../../lib/client';
import { useRefreshValues } from '../api/values';
import type { PlannedRow } from './plan';
import { describeRefusal } from './refusals';
import {
  forgetUnfinished,
  fromRanges,
  rowsLeft,
  saveUnfinished,
  toRanges,
  type InFlight,
  type UnfinishedImport,
} from './resume';

/** What became of a row: as planned, refused by the service (with why), not sent (stopped), or unknown (no answer). */
export type RowResultKind =
  'created' | 'updated' | 'unchanged' | 'skipped' | 'invalid' | 'refused' | 'not_sent' | 'unknown' | 'before_resume';

export interface RowResult {
  row: number;
  result: RowResultKind;
  reason?: string;
  /** What the row holds, to write a refused row back to a file. */
  item: PlannedRow['item'];
}

export interface ImportProgress {
  /** Rows to send answered so far, of `total`. */
  done: number;
  total: number;
  results: RowResult[];
  state: 'running' | 'finished' | 'stopped';
  /** The request id of the last refusal, to quote to support. */
  requestId: string | null;
}

/** An import's own prefix for its requests' Idempotency-Keys: `import-<random>.<request>.<attempt>`. */
function importKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `import-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** A row to update, as the API's batch update addresses it: by its remote_id; is_disabled only when the file says. */
function updateOf(row: PlannedRow): FieldValueUpdate {
  const item = row.item!;
  const data = item.is_disabled == null ? { value: item.value } : { value: item.value, is_disabled: item.is_disabled };
  return { remote_id: row.existing!.remote_id!, data };
}

/** The file an import is of, and the unfinished import of it to go on with (null: from the start). */
export interface ImportSource {
  fingerprint: string;
  fileName: string;
  mode: UnfinishedImport['mode'];
  resume: UnfinishedImport | null;
}

interface Request {
  kind: 'created' | 'updated';
  rows: PlannedRow[];
  /** A request sent before the import was interrupted: its first attempt goes again as it was. */
  again?: InFlight;
}

const chunks = <T>(list: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));

/**
 * Carries out a previewed import through the API's batch create and update (up to 1000 rows a request, each with
 * its own Idempotency-Key, so a request whose answer was lost is never stored twice). A request is all or nothing
 * on the service; when it is refused for some rows, those rows are noted with the service's reason and the others
 * are sent again without them, so that one bad row never holds back the rest. Stop ends it after the request in
 * flight; leaving the page stops it too.
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
  // Closing the tab mid-import asks first (the requests already answered stay stored).
  useEffect(() => {
    if (!running) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [running]);

  const start = useCallback(
    async (planned: PlannedRow[], source: ImportSource) => {
      stopRef.current = false;
      const key = importKey();
      const results: RowResult[] = [];
      const kept: Partial<Record<PlannedRow['outcome'], RowResultKind>> = {
        unchanged: 'unchanged',
        skip: 'skipped',
        invalid: 'invalid',
      };
      const resumed = source.resume;
      const before = fromRanges(resumed?.done ?? []);
      const again = resumed?.inFlight ?? null;
      const flying = new Set(again?.rows ?? []);
      for (const p of planned) {
        if (before.has(p.row)) results.push({ row: p.row, result: 'before_resume', item: p.item });
        else if (flying.has(p.row)) continue;
        else {
          const result = kept[p.outcome];
          if (result) results.push({ row: p.row, result, reason: p.reason, item: p.item });
        }
      }
      const left = rowsLeft(planned, resumed);
      const creates = left.filter((p) => p.outcome === 'create');
      const updates = left.filter((p) => p.outcome === 'update');
      const byRow = new Map(planned.map((p) => [p.row, p]));
      const requests: Request[] = [
        ...(again ? [{ kind: again.kind, rows: again.rows.flatMap((r) => byRow.get(r) ?? []), again }] : []),
        ...chunks(creates, BATCH_LIMIT).map((rows) => ({ kind: 'created' as const, rows })),
        ...chunks(updates, BATCH_LIMIT).map((rows) => ({ kind: 'updated' as const, rows })),
      ];
      const total = requests.reduce((n, r) => n + r.rows.length, 0);
      let current: ImportProgress = { done: 0, total, results: [...results], state: 'running', requestId: null };
      setProgress(current);

      // What a later visit needs to go on from here: kept in the browser until the import is finished.
      const unfinished: UnfinishedImport = {
        fingerprint: source.fingerprint,
        fileName: source.fileName,
        mode: source.mode,
        done: resumed?.done ?? [],
        inFlight: again,
        total: resumed ? resumed.total : total,
      };
      const answered = new Set(before);
      const keep = () => saveUnfinished(fieldId, { ...unfinished, done: toRanges(answered) });
      keep();

      const note = (rows: RowResult[], count: number, requestId?: string | null) => {
        for (const r of rows) if (r.result !== 'unknown' && r.result !== 'not_sent') answered.add(r.row);
        current = {
          ...current,
          done: current.done + count,
          results: [...current.results, ...rows],
          requestId: requestId ?? current.requestId,
        };
        setProgress(current);
      };

      for (const [n, request] of requests.entries()) {
        let pending = request.rows;
        for (let attempt = 0; pending.length > 0 && !stopRef.current; attempt += 1) {
          const first = attempt === 0 ? request.again : undefined;
          const idempotencyKey = first?.key ?? `${key}.${n}.${attempt}`;
          const rows = pending.map((p) => p.row);
          const sending: InFlight =
            request.kind === 'created'
              ? {
                  key: idempotencyKey,
                  rows,
                  kind: 'created',
                  body: first?.kind === 'created' ? first.body : pending.map((p) => p.item!),
                }
              : {
                  key: idempotencyKey,
                  rows,
                  kind: 'updated',
                  body: first?.kind === 'updated' ? first.body : pending.map(updateOf),
                };
          unfinished.inFlight = sending;
          keep();
          try {
            if (sending.kind === 'created') {
              await client.fieldValues.create(fieldId, sending.body, { idempotencyKey });
            } else {
              await client.fieldValues.update(fieldId, sending.body, { idempotencyKey });
            }
            note(
              pending.map((p) => ({ row: p.row, result: request.kind, item: p.item })),
              pending.length,
            );
            pending = [];
          } catch (error) {
            const sent = pending;
            const refusal = describeRefusal(error, (i) => sent[i]?.row ?? 0);
            if (refusal.fatal || refusal.items.size === 0) {
              const result = refusal.unanswered ? 'unknown' : 'refused';
              note(
                sent.map((p) => ({ row: p.row, result, reason: refusal.message, item: p.item })),
                sent.length,
                refusal.requestId,
              );
              if (refusal.fatal) stopRef.current = true;
              pending = [];
              // Without an answer the request stays in flight: a resume sends it again under its key.
              if (refusal.unanswered) {
                keep();
                continue;
              }
            } else {
              // The rows the refusal names are refused; the others go again, without them.
              note(
                sent.flatMap((p, i) =>
                  refusal.items.has(i)
                    ? [{ row: p.row, result: 'refused' as const, reason: refusal.items.get(i), item: p.item }]
                    : [],
                ),
                refusal.items.size,
                refusal.requestId,
              );
              pending = sent.filter((_, i) => !refusal.items.has(i));
            }
          }
          unfinished.inFlight = null;
          keep();
        }
        if (pending.length > 0) {
          note(
            pending.map((p) => ({ row: p.row, result: 'not_sent' as const, item: p.item })),
            0,
          );
        }
      }
      const settled = current.results.filter((r) => r.result !== 'not_sent' && r.result !== 'unknown');
      const finished = settled.length === current.results.length && current.done === total;
      current = {
        ...current,
        results: [...current.results].sort((a, b) => a.row - b.row),
        state: finished ? 'finished' : 'stopped',
      };
      if (finished) forgetUnfinished(fieldId);
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
