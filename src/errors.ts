/**
 * The one error type of the service. Every 4xx/5xx body is rendered from an AppError by
 * http/error-handler.ts in the shape of CONVENTIONS.md: {error_code, message, details, request_id}.
 */
export type ErrorCode =
  | 'INVALID_REQUEST'
  | 'INVALID_CURSOR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'INVALID_TRANSITION'
  | 'VERSION_CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'DUPLICATE_ACCOUNTING_RECORD_IDS'
  | 'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT'
  | 'RECORD_NOT_EDITABLE'
  | 'INVALID_CODING'
  | 'CODING_REQUIRED'
  | 'RATE_LIMITED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type ErrorDetails = Record<string, unknown> | null;

export interface ValidationProblem {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers (WWW-Authenticate, Retry-After, ...). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    status: number,
    message: string,
    details: ErrorDetails = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = details;
    this.headers = headers;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

const BEARER_REALM = 'Bearer realm="svc"';

export const errors = {
  invalidRequest: (problems: ValidationProblem[], message = 'The request is invalid.') =>
    new AppError('INVALID_REQUEST', 400, message, { errors: problems }),
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
  missingToken: () =>
    new AppError('UNAUTHORIZED', 401, 'Authentication credentials are missing.', null, {
      'www-authenticate': BEARER_REALM,
    }),
  invalidToken: () =>
    new AppError('UNAUTHORIZED', 401, 'The access token is invalid or expired.', null, {
      'www-authenticate': `${BEARER_REALM}, error="invalid_token", error_description="The access token is invalid or expired"`,
    }),
  insufficientScope: (scopes: readonly string[]) =>
    new AppError(
      'FORBIDDEN',
      403,
      `This operation requires one of the scopes: ${scopes.join(', ')}.`,
      { required_scopes: [...scopes] },
      { 'www-authenticate': `${BEARER_REALM}, error="insufficient_scope", scope="${scopes.join(' ')}"` },
    ),
  notFound: (what: string, details: ErrorDetails = null) =>
    new AppError('NOT_FOUND', 404, `${what} not found.`, details),
  routeNotFound: (method: string, url: string) =>
    new AppError('NOT_FOUND', 404, `Route ${method} ${url.split('?')[0]} not found.`),
  /** A 4xx the framework raised that no other factory names (its own status, its own words). */
  clientError: (status: number, message: string) => new AppError('INVALID_REQUEST', status, message),
  conflict: (message: string, details: ErrorDetails) => new AppError('CONFLICT', 409, message, details),
  addressedValuesNotFound: (fieldId: string, missing: Record<string, unknown>[]) =>
    new AppError(
      'NOT_FOUND',
      404,
      `${missing.length === 1 ? '1 addressed field value was' : `${missing.length} addressed field values were`} not found in field ${fieldId}; nothing was changed.`,
      { field_id: fieldId, not_found: missing },
    ),
  duplicateExportResults: (ids: string[]) =>
    new AppError(
      'DUPLICATE_ACCOUNTING_RECORD_IDS',
      422,
      'Duplicate accounting record ids found across success and failure results.',
      { duplicate_accounting_record_ids: ids },
    ),
  exportedRecordsNotFound: (ids: string[]) =>
    new AppError('NOT_FOUND', 404, `Accounting record source IDs not found: ${ids.join(', ')}`, {
      not_found_export_entry_source_ids: ids,
    }),
  notReadyForExport: (exportable: string, ids: string[]) =>
    new AppError(
      'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT',
      422,
      `Only accounting records with review status ${exportable} can be updated via this endpoint.`,
      { not_ready_for_export_accounting_record_ids: ids },
    ),
  idempotencyKeyInUse: () =>
    new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      409,
      'A request with this Idempotency-Key is still being processed. Retry later.',
    ),
  idempotencyKeyReused: () =>
    new AppError('IDEMPOTENCY_KEY_REUSED', 422, 'This Idempotency-Key was already used with a different request.'),
  invalidTransition: (from: string, to: string) =>
    new AppError('INVALID_TRANSITION', 409, `Cannot move a record from ${from} to ${to}.`, {
      from,
      to,
    }),
  versionConflict: (expected: number, actual: number) =>
    new AppError('VERSION_CONFLICT', 409, `The record is at version ${actual}, not ${expected}.`, {
      expected_version: expected,
      current_version: actual,
    }),
  /** Coding, splitting and merging are for records under review. */
  recordNotEditable: (id: string, status: string, editable: readonly string[]) =>
    new AppError(
      'RECORD_NOT_EDITABLE',
      409,
      `Record ${id} is ${status}: its lines can be coded, split or merged only in ${editable.join(' or ')}. Move it back to REVIEW first.`,
      { accounting_record_id: id, review_status: status, editable_review_statuses: [...editable] },
    ),
  /** Field values that cannot code a line: each problem names the line and the value. */
  invalidCoding: (problems: (ValidationProblem & Record<string, unknown>)[]) =>
    new AppError(
      'INVALID_CODING',
      422,
      `The coding cannot be applied: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}. Nothing was changed.`,
      { errors: problems },
    ),
  /** A bulk review move refused: every failing record, each with its own code; the status of the gravest. */
  bulkMoveRefused: (
    code: 'NOT_FOUND' | 'VERSION_CONFLICT' | 'INVALID_TRANSITION' | 'CODING_REQUIRED',
    requested: number,
    problems: Record<string, unknown>[],
  ) =>
    new AppError(
      code,
      code === 'NOT_FOUND' ? 404 : code === 'CODING_REQUIRED' ? 422 : 409,
      `${problems.length} of ${requested} records cannot make this move; nothing was changed. details.errors names each.`,
      { errors: problems },
    ),
  codingRequired: (records: Record<string, unknown>[]) =>
    new AppError(
      'CODING_REQUIRED',
      422,
      `${records.length === 1 ? '1 record lacks' : `${records.length} records lack`} the coding the account requires before READY_FOR_EXPORT; nothing was changed.`,
      { records },
    ),
  payloadTooLarge: (limit: number) =>
    new AppError('PAYLOAD_TOO_LARGE', 413, `The request body exceeds ${limit} bytes.`, {
      limit_bytes: limit,
    }),
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
  internal: () => new AppError('INTERNAL_ERROR', 500, 'An unexpected error occurred. Please try again later.'),
} as const;
