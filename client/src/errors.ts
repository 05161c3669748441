/** Every non-2xx answer of the API, and every failure to get one, as one error type. */
export class SvcApiError extends Error {
  /** HTTP status; 0 when no answer arrived (network failure, timeout, abort). */
  readonly status: number;
  /** The API's `error_code` (`NOT_FOUND`, `INVALID_REQUEST`, ...), the OAuth `error` at the token endpoint,
   * or `NETWORK_ERROR` / `TIMEOUT` / `ABORTED` when no answer arrived. */
  readonly error_code: string;
  readonly details: Record<string, unknown> | null;
  readonly request_id: string | null;

  constructor(init: {
    status: number;
    error_code: string;
    message: string;
    details?: Record<string, unknown> | null;
    request_id?: string | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SvcApiError';
    this.status = init.status;
    this.error_code = init.error_code;
    this.details = init.details ?? null;
    this.request_id = init.request_id ?? null;
  }
}

/** A JSON object (not null, not an array): its properties can be read and checked one by one. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds the error from an HTTP answer whose body may be the API's error shape, the OAuth one, or neither. */
export function errorFromResponse(status: number, body: unknown, requestId: string | null): SvcApiError {
  const b: Record<string, unknown> = isRecord(body) ? body : {};
  if (typeof b.error_code === 'string') {
    return new SvcApiError({
      status,
      error_code: b.error_code,
      message: typeof b.message === 'string' ? b.message : `HTTP ${status}`,
      details: isRecord(b.details) ? b.details : null,
      request_id: typeof b.request_id === 'string' ? b.request_id : requestId,
    });
  }
  if (typeof b.error === 'string') {
    return new SvcApiError({
      status,
      error_code: b.error,
      message: typeof b.error_description === 'string' ? b.error_description : b.error,
      request_id: requestId,
    });
  }
  return new SvcApiError({ status, error_code: `HTTP_${status}`, message: `HTTP ${status}`, request_id: requestId });
}
