import { AppError, type OAuthErrorCode } from './app-error.js';

const BEARER_REALM = 'Bearer realm="svc"';

/** Who may ask: tokens, scopes, roles, console sign-in, OAuth. Used through `errors` (src/errors.ts). */
export const accessErrors = {
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
  invalidOperatorToken: () =>
    new AppError(
      'UNAUTHORIZED',
      401,
      "The token is not this sandbox server's operator token (SANDBOX_ADMIN_TOKEN).",
      null,
      {
        'www-authenticate': `${BEARER_REALM}, error="invalid_token", error_description="The token is not the sandbox operator token"`,
      },
    ),
  insufficientScope: (scopes: readonly string[]) =>
    new AppError(
      'FORBIDDEN',
      403,
      `This operation requires one of the scopes: ${scopes.join(', ')}.`,
      { required_scopes: [...scopes] },
      { 'www-authenticate': `${BEARER_REALM}, error="insufficient_scope", scope="${scopes.join(' ')}"` },
    ),
  /** A caller that would grant a new API client scopes it does not hold itself. */
  scopesNotHeld: (scopes: readonly string[]) =>
    new AppError('FORBIDDEN', 403, `A client may be given only scopes the caller holds; not: ${scopes.join(', ')}.`, {
      scopes_not_held: [...scopes],
    }),
  /** A console user whose role grants none of the operation's scopes. */
  roleForbidden: (role: string, scopes: readonly string[]) =>
    new AppError('FORBIDDEN', 403, `Your role (${role}) does not allow this operation.`, {
      role,
      required_scopes: [...scopes],
    }),
  /** A saved view another user shared with the account: seen by all, changed by its owner alone. */
  savedViewNotYours: (id: string, ownerUserId: string) =>
    new AppError(
      'FORBIDDEN',
      403,
      `Saved view ${id} is another user's, shared with the account: only they may change or delete it.`,
      { saved_view_id: id, owner_user_id: ownerUserId },
    ),
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
  /** A token endpoint refusal (RFC 6749 §5.2): 401 for invalid_client, 400 for the others. */
  oauth: (error: Exclude<OAuthErrorCode, 'temporarily_unavailable' | 'server_error'>, description: string) =>
    error === 'invalid_client'
      ? new AppError('UNAUTHORIZED', 401, description, null, {}, error)
      : new AppError('INVALID_REQUEST', 400, description, null, {}, error),
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
} as const;
