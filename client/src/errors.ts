import type { components } from './openapi.js';

/** Every `error_code` the API's OpenAPI document lists. */
export type ApiErrorCode = components['schemas']['ErrorResponse']['error_code'];
/** The codes the client itself gives when no answer arrived, and the OAuth codes of the token endpoint. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'ABORTED' | 'INVALID_TOKEN_RESPONSE' | `HTTP_${number}`;
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'temporarily_unavailable'
  | 'server_error';
export type ErrorCode = ApiErrorCode | ClientErrorCode | OAuthErrorCode;

interface ErrorInit {
  status: number;
  error_code: ErrorCode;
  message: string;
  details?: Record<string, unknown> | null;
  request_id?: string | null;
  cause?: unknown;
  retry_after_seconds?: number | null;
}

/**
 * Every non-2xx answer of the API, and every failure to get one. Families are subclasses, so that `catch` can
 * narrow with `instanceof`: SvcValidationError (400 with `details.errors`), SvcAuthError (401, 403),
 * SvcNotFoundError (404), SvcConflictError (409 and 422 business refusals), SvcIdempotencyError (a key in use or
 * reused), SvcRateLimitError (429, with `retry_after_seconds`), SvcUnavailableError (503, network, and
 * SvcTimeoutError), SvcAbortError (the caller's signal).
 */
export class SvcApiError extends Error {
  /** HTTP status; 0 when no answer arrived (network failure, timeout, abort). */
  readonly status: number;
  /** The API's `error_code`, the OAuth `error` at the token endpoint, or the client's own when no answer came. */
  readonly error_code: ErrorCode;
  readonly details: Record<string, unknown> | null;
  readonly request_id: string | null;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.error_code = init.error_code;
    this.details = init.details ?? null;
    this.request_id = init.request_id ?? null;
  }
}

/** One problem of an invalid request: a JSON pointer into the body, or `/query/…`, `/params/…`, `/headers/…`. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** 400: the request is invalid (every problem in `problems`) or its cursor is not one the API gave. */
export class SvcValidationError extends SvcApiError {
  get problems(): ValidationProblem[] {
    const listed = this.details?.errors;
    return Array.isArray(listed)
      ? listed.filter(
          (p): p is ValidationProblem => isRecord(p) && typeof p.path === 'string' && typeof p.message === 'string',
        )
      : [];
  }
}
/** 401 (no, a bad or an expired credential) and 403 (a scope or role that does not allow the operation). */
export class SvcAuthError extends SvcApiError {}
export class SvcNotFoundError extends SvcApiError {}
/** 409 and 422 refusals of the request's business: a version conflict, a move not allowed, coding required... */
export class SvcConflictError extends SvcApiError {}
/** The Idempotency-Key is in use by a request still running (409), or was used for another request (422). */
export class SvcIdempotencyError extends SvcApiError {}
export class SvcRateLimitError extends SvcApiError {
  /** Seconds the API asked to wait (Retry-After), when it said. */
  readonly retry_after_seconds: number | null;
  constructor(init: ErrorInit) {
    super(init);
    this.retry_after_seconds = init.retry_after_seconds ?? null;
  }
}
/** The service could not answer: 503, 5xx, a network failure or a timeout. Safe to retry with the same key. */
export class SvcUnavailableError extends SvcApiError {}
/**
 * No answer in time (`TIMEOUT`, status 0): `scope` 'attempt' when each attempt ran out of the client's `timeoutMs`
 * and no retry was left, 'call' when the call's own `timeoutMs` ran out (during an attempt or a wait between two).
 */
export class SvcTimeoutError extends SvcUnavailableError {
  readonly scope: 'attempt' | 'call';
  readonly timeout_ms: number;
  constructor(init: ErrorInit & { scope: 'attempt' | 'call'; timeout_ms: number }) {
    super(init);
    this.scope = init.scope;
    this.timeout_ms = init.timeout_ms;
  }
}
/** The caller's AbortSignal ended the call (`ABORTED`, status 0); `cause` is the signal's reason. */
export class SvcAbortError extends SvcApiError {}

/** A JSON object (not null, not an array): its properties can be read and checked one by one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error of this status and code, as its family's class. */
export function typedError(init: ErrorInit): SvcApiError {
  const code = init.error_code;
  if (code === 'IDEMPOTENCY_KEY_IN_USE' || code === 'IDEMPOTENCY_KEY_REUSED') return new SvcIdempotencyError(init);
  if (init.status === 0 || init.status >= 500) {
    return code === 'ABORTED' ? new SvcAbortError(init) : new SvcUnavailableError(init);
  }
  switch (init.status) {
    case 400:
      return code === 'invalid_client' ? new SvcAuthError(init) : new SvcValidationError(init);
    case 401:
    case 403:
      return new SvcAuthError(init);
    case 404:
      return new SvcNotFoundError(init);
    case 409:
    case 422:
      return new SvcConflictError(init);
    case 429:
      return new SvcRateLimitError(init);
    default:
      return new SvcApiError(init);
  }
}

/** Builds the error from an HTTP answer whose body may be the API's error shape, the OAuth one, or neither. */
export function errorFromResponse(
  status: number,
  body: unknown,
  requestId: string | null,
  retryAfter: string | null = null,
): SvcApiError {
  const b: Record<string, unknown> = isRecord(body) ? body : {};
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  if (typeof b.error_code === 'string') {
    return typedError({
      status,
      // The API's codes are the OpenAPI document's; a code added by a newer server passes through as it came.
      error_code: b.error_code as ErrorCode, // oxlint-disable-line typescript/no-unsafe-type-assertion -- see above
      message: typeof b.message === 'string' ? b.message : `HTTP ${status}`,
      details: isRecord(b.details) ? b.details : null,
      request_id: typeof b.request_id === 'string' ? b.request_id : requestId,
      retry_after_seconds: seconds,
    });
  }
  if (typeof b.error === 'string') {
    return typedError({
      status,
      error_code: b.error as OAuthErrorCode, // oxlint-disable-line typescript/no-unsafe-type-assertion -- the token endpoint's codes
      message: typeof b.error_description === 'string' ? b.error_description : b.error,
      request_id: requestId,
      retry_after_seconds: seconds,
    });
  }
  return typedError({
    status,
    error_code: `HTTP_${status}`,
    message: `HTTP ${status}`,
    request_id: requestId,
    retry_after_seconds: seconds,
  });
}
