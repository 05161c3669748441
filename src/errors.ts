/**
 * The one error type of the service. Every 4xx/5xx body is rendered from an AppError by
 * http/error-handler.ts in the shape of CONVENTIONS.md: {error_code, message, details, request_id}.
 */
export const ERROR_CODES = [
  'INVALID_REQUEST',
  'INVALID_CURSOR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'IDEMPOTENCY_KEY_IN_USE',
  'INVALID_TRANSITION',
  'VERSION_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  'DUPLICATE_ACCOUNTING_RECORD_IDS',
  'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT',
  'RECORD_NOT_EDITABLE',
  'INVALID_CODING',
  'CODING_REQUIRED',
  'RATE_LIMITED',
  'INVALID_CREDENTIALS',
  'SIGN_IN_LOCKED',
  'INVALID_MFA_CODE',
  'INVALID_PASSKEY',
  'CSRF_TOKEN_INVALID',
  'INVALID_PASSWORD_LINK',
  'ACTIVE_INTEGRATION_EXISTS',
  'VENDOR_ACCOUNT_ID_MISMATCH',
  'INTEGRATION_NOT_ACTIVE',
  'INVALID_AUTHORIZATION_REQUEST',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown> | null;

/** Bytes of a refused body still to come that are read and dropped rather than cut (errors.payloadTooLarge). */
export const DRAIN_LIMIT = 64 * 1024;

/** The most problems one INVALID_REQUEST lists (details.errors); the rest are counted (details.errors_omitted). */
export const MAX_LISTED_PROBLEMS = 100;
/** The most problems its message names, for people and logs. */
const MAX_PROBLEMS_IN_MESSAGE = 10;

/** "The request is invalid: /a must be string; /b is required; and 12 more" — never the whole list. */
export function problemsMessage(problems: readonly ValidationProblem[], omitted = 0): string {
  const named = problems.slice(0, MAX_PROBLEMS_IN_MESSAGE).map((p) => `${p.path || '(body)'} ${p.message}`);
  const more = problems.length + omitted - named.length;
  return `The request is invalid: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

export interface ValidationProblem {
  path: string;
  message: string;
}

/** The error codes of RFC 6749 §5.2 (and the registered temporarily_unavailable, server_error) the token endpoint answers. */
export const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unauthorized_client',
  'unsupported_grant_type',
  'temporarily_unavailable',
  'server_error',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  /** Extra response headers (WWW-Authenticate, Retry-After, ...). */
  readonly headers: Record<string, string>;
  /**
   * Its RFC 6749 code, where the token endpoint answers it ({error, error_description}); the error handler derives
   * one from the status for the others.
   */
  readonly oauth: OAuthErrorCode | null;

  constructor(
    code: ErrorCode,
    status: number,
    message: string,
    details: ErrorDetails = null,
    headers: Record<string, string> = {},
    oauth: OAuthErrorCode | null = null,
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.details = details;
    this.headers = headers;
    this.oauth = oauth;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

const BEARER_REALM = 'Bearer realm="svc"';

export const errors = {
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
  missingToken: () =>
    new AppError('UNAUTHORIZED', 401, 'Authentication credentials are missing.', null, {
      'www-authenticate': BEARER_REALM,
    }),
  basicNotAccepted: () =>
    new AppError(
      'UNAUTHORIZED',
      401,
      'HTTP Basic credentials are not accepted here: get a token at POST /oauth2/token (client credentials) and send it as Authorization: Bearer <token>.',
      null,
      { 'www-authenticate': BEARER_REALM },
    ),
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
  idempotencyKeyRefused: () =>
    new AppError(
      'INVALID_REQUEST',
      400,
      'This operation takes no Idempotency-Key: its answer holds a secret that is shown once and never stored.',
      { errors: [{ path: '/headers/idempotency-key', message: 'is not accepted by this operation' }] },
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
  /** A caller that would grant a new API client scopes it does not hold itself. */
  scopesNotHeld: (scopes: readonly string[]) =>
    new AppError(
      'FORBIDDEN',
      403,
      `A new client may be given only scopes the caller holds; not: ${scopes.join(', ')}.`,
      {
        scopes_not_held: [...scopes],
      },
    ),
  /** A console user whose role grants none of the operation's scopes. */
  roleForbidden: (role: string, scopes: readonly string[]) =>
    new AppError('FORBIDDEN', 403, `Your role (${role}) does not allow this operation.`, {
      role,
      required_scopes: [...scopes],
    }),
  missingSession: () => new AppError('UNAUTHORIZED', 401, 'Not signed in, or the session has ended.'),
  /** Sign-in: the same answer for an unknown email, a wrong password, a disabled user and no password yet. */
  invalidCredentials: () => new AppError('INVALID_CREDENTIALS', 401, 'The email or password is incorrect.'),
  /** Sign-in throttled (too many failures from this address, or for this email from it): the same for any email. */
  signInLocked: (retryAfterSeconds: number) =>
    new AppError(
      'SIGN_IN_LOCKED',
      429,
      `Too many failed sign-in attempts: wait ${retryAfterSeconds} seconds before trying again.`,
      { retry_after_seconds: retryAfterSeconds },
      { 'retry-after': String(retryAfterSeconds) },
    ),
  /** A second-step code (TOTP or recovery code) that is wrong, expired or used already: 400, the session stays. */
  invalidMfaCode: () =>
    new AppError(
      'INVALID_MFA_CODE',
      400,
      'The code is not valid: it is wrong, expired or already used. Enter the current code of your authenticator app, or an unused recovery code.',
      { errors: [{ path: '/code', message: 'is not a valid code' }] },
    ),
  /**
   * A passkey's answer that does not verify: another user's or an unknown credential, a challenge not this session's
   * (used, expired, never asked), another site's origin, a bad signature or counter. One answer for all: 400.
   */
  invalidPasskey: () =>
    new AppError(
      'INVALID_PASSKEY',
      400,
      'The passkey could not be verified: it is not one of yours, or the request for it expired or was answered already. Try again.',
      { errors: [{ path: '/credential', message: 'is not a valid answer of a passkey' }] },
    ),
  csrfTokenInvalid: () =>
    new AppError(
      'CSRF_TOKEN_INVALID',
      403,
      "A request signed in through the console must carry the session's CSRF token in X-CSRF-Token.",
    ),
  invalidPasswordLink: () =>
    new AppError(
      'INVALID_PASSWORD_LINK',
      400,
      'This password link is unknown, already used or expired; ask for a new one.',
    ),
  /** The account has an ACTIVE integration, and the request would make another (create, reactivate). */
  activeIntegrationExists: (
    message: string,
    existing: { integration_id: string; vendor: string },
    requestedVendor: string,
  ) =>
    new AppError('ACTIVE_INTEGRATION_EXISTS', 409, message, {
      existing_integration_id: existing.integration_id,
      existing_vendor: existing.vendor,
      requested_vendor: requestedVendor,
    }),
  vendorAccountIdMismatch: (existing: { integration_id: string; vendor_account_id: string }, requested: string) =>
    new AppError(
      'VENDOR_ACCOUNT_ID_MISMATCH',
      409,
      'Cannot create integration. An active integration for this vendor already exists with a different vendor account ID.',
      {
        existing_integration_id: existing.integration_id,
        existing_vendor_account_id: existing.vendor_account_id,
        requested_vendor_account_id: requested,
      },
    ),
  /**
   * An OAuth authorization request the consent screen cannot show (RFC 6749 §4.1.2.1): `redirect_to` is where the
   * app expects the error (null when the client or redirect URI is not valid: then nothing may be redirected).
   */
  invalidAuthorizationRequest: (message: string, oauthError: string, redirectTo: string | null) =>
    new AppError('INVALID_AUTHORIZATION_REQUEST', 400, message, { error: oauthError, redirect_to: redirectTo }),
  /** An operation of the console's people (a partner app's consent), called with a bearer token. */
  consoleOnly: () =>
    new AppError(
      'FORBIDDEN',
      403,
      'Only a person signed in to the console may do this (an account admin connects a partner app), not an API client.',
    ),
  integrationNotActive: (integrationId: string, status: string) =>
    new AppError('INTEGRATION_NOT_ACTIVE', 409, 'Cannot disconnect integration. Integration is not active.', {
      integration_id: integrationId,
      current_status: status,
    }),
  /**
   * A vendor that no operator created, or one disabled, named by the request at `path` (the body's /vendor, or
   * the integration a reactivation names): 400, as any other invalid value.
   */
  vendorUnusable: (vendor: string, state: 'unknown' | 'disabled', path: string) =>
    new AppError(
      'INVALID_REQUEST',
      400,
      state === 'unknown'
        ? `Vendor ${vendor} is not a vendor of this service: ERP partners get their vendor id from the service's operator.`
        : `Vendor ${vendor} is disabled: no integration with it can be created or reactivated.`,
      {
        errors: [
          {
            path,
            message: state === 'unknown' ? 'names no vendor of this service' : `names disabled vendor ${vendor}`,
          },
        ],
      },
    ),
  internal: () => new AppError('INTERNAL_ERROR', 500, 'An unexpected error occurred. Please try again later.'),
  /** A token endpoint refusal (RFC 6749 §5.2): 401 for invalid_client, 400 for the others. */
  oauth: (error: Exclude<OAuthErrorCode, 'temporarily_unavailable' | 'server_error'>, description: string) =>
    error === 'invalid_client'
      ? new AppError('UNAUTHORIZED', 401, description, null, {}, error)
      : new AppError('INVALID_REQUEST', 400, description, null, {}, error),
  /** A sandbox fault set on the client (docs/sandbox.md): the answer a failing service would give. */
  sandboxFault: (status: 500 | 503, retryAfterSeconds: number) =>
    status === 503
      ? new AppError('SERVICE_UNAVAILABLE', 503, 'Injected by the sandbox (a fault set on this client).', null, {
          'retry-after': String(retryAfterSeconds),
        })
      : new AppError('INTERNAL_ERROR', 500, 'Injected by the sandbox (a fault set on this client).'),
} as const;
