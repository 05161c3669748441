import { AppError, type ErrorDetails, type ValidationProblem, MAX_LISTED_PROBLEMS } from './app-error.js';

/** The request itself: its form, size, rate and key, what it names; and the service's own failures. Used through `errors` (src/errors.ts). */
export const requestErrors = {
  /**
   * At most MAX_LISTED_PROBLEMS problems are listed in details.errors; details.errors_omitted counts the others
   * (present only when some are), so that a hostile body of a million mistakes gets a small answer.
   */
  invalidRequest: (problems: ValidationProblem[], message = 'The request is invalid.', omitted = 0) => {
    const unlisted = omitted + Math.max(0, problems.length - MAX_LISTED_PROBLEMS);
    return new AppError('INVALID_REQUEST', 400, message, {
      errors: problems.slice(0, MAX_LISTED_PROBLEMS),
      ...(unlisted > 0 ? { errors_omitted: unlisted } : {}),
    });
  },
  invalidField: (path: string, message: string) =>
    new AppError('INVALID_REQUEST', 400, `The request is invalid: ${path === '' ? 'the body' : path} ${message}.`, {
      errors: [{ path, message }],
    }),
  invalidCursor: () =>
    new AppError(
      'INVALID_CURSOR',
      400,
      'The cursor is not valid for this query. Use the next_cursor of a previous response with the same filters.',
    ),
  notFound: (what: string, details: ErrorDetails = null) =>
    new AppError('NOT_FOUND', 404, `${what} not found.`, details),
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new AppError(
      'METHOD_NOT_ALLOWED',
      405,
      `${path} does not take ${method}; it takes ${allowed.join(', ')}.`,
      { allowed_methods: [...allowed] },
      { allow: allowed.join(', ') },
    ),
  routeNotFound: (method: string, url: string) =>
    new AppError('NOT_FOUND', 404, `Route ${method} ${url.split('?')[0]} not found.`),
  /** A 4xx the framework raised that no other factory names (its own status, its own words). */
  clientError: (status: number, message: string) => new AppError('INVALID_REQUEST', status, message),
  conflict: (message: string, details: ErrorDetails) => new AppError('CONFLICT', 409, message, details),
  idempotencyKeyInUse: () =>
    new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      409,
      'A request with this Idempotency-Key is still being processed. Retry later.',
    ),
  idempotencyKeyRefused: () =>
    new AppError(
      'INVALID_REQUEST',
      400,
      'This operation takes no Idempotency-Key: its answer holds a secret that is shown once and never stored.',
      { errors: [{ path: '/headers/idempotency-key', message: 'is not accepted by this operation' }] },
    ),
  idempotencyKeyReused: () =>
    new AppError('IDEMPOTENCY_KEY_REUSED', 422, 'This Idempotency-Key was already used with a different request.'),
  /**
   * Both answer before the body has been read to its end. Fastify then closes the connection, and a client still
   * sending may see the reset rather than the answer; when little is left to come (`drainRest`, up to DRAIN_LIMIT)
   * the connection is kept instead and the rest read and dropped, unparsed, so an honest client just over the limit
   * gets its answer. A hostile megabyte is not read.
   */
  payloadTooLarge: (limit: number, drainRest = false) =>
    new AppError(
      'PAYLOAD_TOO_LARGE',
      413,
      `The request body exceeds ${limit} bytes.`,
      { limit_bytes: limit },
      drainRest ? { connection: 'keep-alive' } : {},
    ),
  bodyTooComplex: (message: string, drainRest = false) =>
    new AppError(
      'INVALID_REQUEST',
      400,
      `The request is invalid: the body ${message}.`,
      { errors: [{ path: '', message }] },
      drainRest ? { connection: 'keep-alive' } : {},
    ),
  unsupportedMediaType: (contentType: string | undefined) =>
    new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      415,
      `Content-Type ${contentType ?? '(none)'} is not supported; send application/json.`,
    ),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', 429, 'Too many requests. Retry after the time in Retry-After.', null, {
      'retry-after': String(retryAfterSeconds),
    }),
  serviceUnavailable: () =>
    new AppError('SERVICE_UNAVAILABLE', 503, 'The database is unavailable. Retry later.', null, {
      'retry-after': '1',
    }),
  /**
   * No room left where the request's writes go (a full disk, a quota, SQLite's page limit): nothing was stored, and
   * an Idempotency-Key stays free. No Retry-After: room is made by the service's operator, not by waiting a second.
   */
  storageFull: () =>
    new AppError(
      'INSUFFICIENT_STORAGE',
      507,
      "The service has no room left to store this request (its storage is full): nothing was stored. Send it again once the service's operator has made room.",
    ),
  /** PostgreSQL undid the request's transaction for a concurrent one (a deadlock's victim, a serialization failure). */
  concurrentConflict: () =>
    new AppError(
      'SERVICE_UNAVAILABLE',
      503,
      'The request met a concurrent one and was undone: nothing of it was saved. Send it again.',
      null,
      { 'retry-after': '1' },
    ),
  internal: () => new AppError('INTERNAL_ERROR', 500, 'An unexpected error occurred. Please try again later.'),
  /** A sandbox fault set on the client (docs/sandbox.md): the answer a failing service would give. */
  sandboxFault: (status: 500 | 503, retryAfterSeconds: number) =>
    status === 503
      ? new AppError('SERVICE_UNAVAILABLE', 503, 'Injected by the sandbox (a fault set on this client).', null, {
          'retry-after': String(retryAfterSeconds),
        })
      : new AppError('INTERNAL_ERROR', 500, 'Injected by the sandbox (a fault set on this client).'),
} as const;
