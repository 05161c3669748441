import { SvcApiError } from '@svc/client';

/** An error as the console shows it: its message in words and, when the service answered, its request id. */
export interface ShownError {
  code: string | null;
  message: string;
  requestId: string | null;
}

export function shownError(error: unknown): ShownError {
  if (error instanceof SvcApiError) {
    return { code: error.error_code, message: errorWords(error), requestId: error.request_id };
  }
  return { code: null, message: error instanceof Error ? error.message : String(error), requestId: null };
}

/** The service's own message, said more plainly for the few answers a person meets often. */
function errorWords(error: SvcApiError): string {
  switch (error.error_code) {
    case 'NETWORK_ERROR':
      return 'The service could not be reached. Check your connection and try again.';
    case 'TIMEOUT':
      return 'The service did not answer in time. Try again.';
    case 'UNAUTHORIZED':
      return 'You are not signed in, or your session has ended. Sign in again.';
    case 'CSRF_TOKEN_INVALID':
      return 'Your session could not confirm this change. Reload the page and try again.';
    default:
      return error.message;
  }
}

export function isApiError(error: unknown, code: string): error is SvcApiError {
  return error instanceof SvcApiError && error.error_code === code;
}

/**
 * The service says the thing is not there (404): deleted, or never in the user's account. Final, even when a page
 * still holds what it read before (a failed refresh otherwise keeps the page as it was: RefreshFailed).
 */
export function isGone(error: unknown): boolean {
  return error instanceof SvcApiError && error.status === 404;
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof SvcApiError && error.status === 401;
}

/** One record's refusal in a bulk move's details.errors. */
export interface RecordProblem {
  accounting_record_id: string;
  error_code: string;
  message: string;
  /** The same in plain words (the service's, for a person). */
  reason?: string;
  lines?: { index: number; line_id: string; missing_fields: { field_id: string; field_name: string }[] }[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRecordProblem(value: unknown): value is RecordProblem {
  return (
    isObject(value) &&
    typeof value.accounting_record_id === 'string' &&
    typeof value.error_code === 'string' &&
    typeof value.message === 'string'
  );
}

/** The records a refused bulk move names (details.errors), by record id. */
export function recordProblems(error: unknown): Map<string, RecordProblem> {
  const problems = new Map<string, RecordProblem>();
  if (!(error instanceof SvcApiError) || !isObject(error.details)) return problems;
  const list = error.details.errors;
  if (!Array.isArray(list)) return problems;
  for (const item of list) if (isRecordProblem(item)) problems.set(item.accounting_record_id, item);
  return problems;
}

/** "line 1 lacks GL Account; line 2 lacks GL Account, Department" (index is 0-based among economic lines). */
export function describeMissingLines(lines: NonNullable<RecordProblem['lines']>): string {
  return lines
    .map((line) => `line ${line.index + 1} lacks ${line.missing_fields.map((f) => f.field_name).join(', ')}`)
    .join('; ');
}
