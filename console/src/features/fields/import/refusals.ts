import { SvcApiError } from '@svc/client';
import { shownError } from '../../../lib/errors';

/** What a refused request said: the items it named (by index in the request) with why, or the whole request's message. */
export interface Refusal {
  /** Item index → why, in the API's words; empty when the refusal concerns the request as a whole. */
  items: Map<number, string>;
  message: string;
  requestId: string | null;
  /**
   * No answer came (network, timeout, 5xx after the SDK's retries): the request may or may not have been stored.
   * A refusal (4xx) is certain: nothing of it was stored.
   */
  unanswered: boolean;
  /** The next requests would fail the same way (signed out, not allowed, the field is gone, no answer): stop. */
  fatal: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ITEM_PATH = /^\/items\/(\d+)(?:\/(?:data\/)?([^/]+))?/;

/** INVALID_REQUEST: each problem at /items/<i>/<member>, in the API's words. */
function validationItems(details: Record<string, unknown>, named: Map<number, string>): void {
  const list = Array.isArray(details.errors) ? details.errors : [];
  for (const problem of list) {
    if (!isObject(problem) || typeof problem.path !== 'string' || typeof problem.message !== 'string') continue;
    const match = ITEM_PATH.exec(problem.path);
    if (!match) continue;
    const reason = match[2] ? `${match[2]} ${problem.message}` : problem.message;
    const index = Number(match[1]);
    named.set(index, named.has(index) ? `${named.get(index)}; ${reason}` : reason);
  }
}

/** CONFLICT: a remote_id or value_id already taken in the field, or by an earlier item of the same request. */
function conflictItems(details: Record<string, unknown>, named: Map<number, string>, rowOf: (i: number) => number) {
  const list = Array.isArray(details.conflicts) ? details.conflicts : [];
  for (const conflict of list) {
    if (!isObject(conflict) || typeof conflict.index !== 'number') continue;
    const what = `${String(conflict.field)} “${String(conflict.value)}”`;
    const other = isObject(conflict.with) ? conflict.with : {};
    const reason =
      typeof other.index === 'number'
        ? `${what} is also on row ${rowOf(other.index).toLocaleString('en-US')}: it must be unique within the field.`
        : `${what} is already used by a value of this field${typeof other.svc_id === 'string' ? ` (${other.svc_id})` : ''}.`;
    named.set(conflict.index, reason);
  }
}

/** NOT_FOUND of an update: the addressed values that are gone (deleted since the preview read them). */
function notFoundItems(details: Record<string, unknown>, named: Map<number, string>): void {
  const list = Array.isArray(details.not_found) ? details.not_found : [];
  for (const missing of list) {
    if (!isObject(missing) || typeof missing.index !== 'number') continue;
    named.set(missing.index, 'The value its remote_id named is gone (deleted since the preview).');
  }
}

/** What the service said about a refused request; `rowOf` turns an item index into its row of the file. */
export function describeRefusal(error: unknown, rowOf: (index: number) => number): Refusal {
  const shown = shownError(error);
  const items = new Map<number, string>();
  if (error instanceof SvcApiError && isObject(error.details)) {
    if (error.error_code === 'INVALID_REQUEST') validationItems(error.details, items);
    else if (error.error_code === 'CONFLICT') conflictItems(error.details, items, rowOf);
    else if (error.error_code === 'NOT_FOUND') notFoundItems(error.details, items);
  }
  const status = error instanceof SvcApiError ? error.status : 0;
  const unanswered = status === 0 || status >= 500;
  return {
    items,
    message: shown.message,
    requestId: shown.requestId,
    unanswered,
    fatal: unanswered || status === 401 || status === 403 || (status === 404 && items.size === 0),
  };
}
