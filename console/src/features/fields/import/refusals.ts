import { SvcApiError } from '@svc/client';
import { shownError } from '../../../lib/errors';
import type { ImportBatch } from './import-file';

/** One row of a refused batch that the service named, and why, in words. */
export interface RefusedRow {
  row: number;
  reason: string;
}

/** A batch the service refused: nothing of it was stored. */
export interface RefusedBatch {
  index: number;
  firstRow: number;
  lastRow: number;
  count: number;
  /** The service's message for the whole batch. */
  message: string;
  requestId: string | null;
  /** The rows the refusal names (empty when it concerns the batch as a whole: a network failure, a 403). */
  rows: RefusedRow[];
  /**
   * No answer came (network, timeout, 5xx after the SDK's retries): the batch may or may not have been stored.
   * Refusals (4xx) are certain: nothing of the batch was stored.
   */
  unanswered: boolean;
  /** The next batches would fail the same way (signed out, not allowed, the field is gone, no answer): stop. */
  fatal: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ITEM_PATH = /^\/items\/(\d+)(?:\/([^/]+))?/;

/** INVALID_REQUEST: each problem at /items/<i>/<member>, in the API's words. */
function validationRows(batch: ImportBatch, details: Record<string, unknown>): RefusedRow[] {
  const list = Array.isArray(details.errors) ? details.errors : [];
  return list.flatMap((problem): RefusedRow[] => {
    if (!isObject(problem) || typeof problem.path !== 'string' || typeof problem.message !== 'string') return [];
    const match = ITEM_PATH.exec(problem.path);
    const row = match ? batch.rows[Number(match[1])] : undefined;
    if (!match || !row) return [];
    return [{ row: row.row, reason: match[2] ? `${match[2]} ${problem.message}` : problem.message }];
  });
}

/** CONFLICT: a remote_id or value_id already taken in the field, or by an earlier row of the same batch. */
function conflictRows(batch: ImportBatch, details: Record<string, unknown>): RefusedRow[] {
  const list = Array.isArray(details.conflicts) ? details.conflicts : [];
  return list.flatMap((conflict): RefusedRow[] => {
    if (!isObject(conflict) || typeof conflict.index !== 'number') return [];
    const row = batch.rows[conflict.index];
    if (!row) return [];
    const what = `${String(conflict.field)} “${String(conflict.value)}”`;
    const other = isObject(conflict.with) ? conflict.with : {};
    const earlier = typeof other.index === 'number' ? batch.rows[other.index] : undefined;
    const reason = earlier
      ? `${what} is also on row ${earlier.row.toLocaleString('en-US')}: it must be unique within the field.`
      : `${what} is already used by a value of this field${typeof other.svc_id === 'string' ? ` (${other.svc_id})` : ''}.`;
    return [{ row: row.row, reason }];
  });
}

/** What the service said about a refused batch, row by row where it named rows. */
export function describeRefusal(batch: ImportBatch, error: unknown): RefusedBatch {
  const shown = shownError(error);
  let rows: RefusedRow[] = [];
  if (error instanceof SvcApiError && isObject(error.details)) {
    if (error.error_code === 'INVALID_REQUEST') rows = validationRows(batch, error.details);
    else if (error.error_code === 'CONFLICT') rows = conflictRows(batch, error.details);
  }
  rows.sort((a, b) => a.row - b.row);
  const status = error instanceof SvcApiError ? error.status : 0;
  const unanswered = status === 0 || status >= 500;
  return {
    index: batch.index,
    firstRow: batch.rows[0]?.row ?? 0,
    lastRow: batch.rows.at(-1)?.row ?? 0,
    count: batch.rows.length,
    message: shown.message,
    requestId: shown.requestId,
    rows,
    unanswered,
    fatal: unanswered || status === 401 || status === 403 || status === 404,
  };
}
