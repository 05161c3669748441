/** The error type of the service, its codes, and what renders a list of problems. The factories are src/errors.ts. */
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
  'EXPORT_REFUSED',
  'EXPORT_TOO_LARGE',
  'RATE_LIMITED',
  'INVALID_CREDENTIALS',
  'SIGN_IN_LOCKED',
  'INVALID_MFA_CODE',
  'CSRF_TOKEN_INVALID',
  'INVALID_PASSWORD_LINK',
  'INVALID_PASSKEY',
  'ACTIVE_INTEGRATION_EXISTS',
  'VENDOR_ACCOUNT_ID_MISMATCH',
  'INTEGRATION_NOT_ACTIVE',
  'WEBHOOK_ENDPOINT_LIMIT_REACHED',
  'WEBHOOK_ENDPOINT_DISABLED',
  'INVALID_AUTHORIZATION_REQUEST',
  'UNSUPPORTED_RECEIPT_TYPE',
  'RECEIPT_LIMIT_REACHED',
  'RECEIPT_ATTACHED_ELSEWHERE',
  'RECEIPT_REQUIRED',
  'INVALID_RECEIPT_LINK',
  'RECEIPT_LINK_EXPIRED',
  'SERVICE_UNAVAILABLE',
  'INSUFFICIENT_STORAGE',
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
