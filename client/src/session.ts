import { newIdempotencyKey, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  AccountUserSettings,
  AccountUserSettingsUpdate,
  ConsoleSession,
  ConsoleUser,
  ConsoleUserList,
  MfaCodeRequest,
  MfaStatus,
  MfaVerified,
  NewRecoveryCodes,
  SetPasswordRequest,
  SignInRequest,
  TotpCodeRequest,
  TotpConfirmed,
  TotpEnrolment,
} from './types.js';

/**
 * The console's session (`session: true` clients in a browser): sign-in (a second step with a code for a user with
 * two-step sign-in: the answer's `step` says), the signed-in user, sign-out, a password from a one-time link, and
 * the user's own two-step sign-in. The CSRF token of every session answered is kept and sent with every write.
 */
export function sessionApi(http: Transport) {
  const keep = (session: ConsoleSession): ConsoleSession => {
    http.setCsrfToken(session.csrf_token);
    return session;
  };
  return {
    signIn: async (credentials: SignInRequest, options?: RequestOptions) =>
      keep(await http.request<ConsoleSession>({ method: 'POST', path: '/auth/session', body: credentials, options })),
    current: async (options?: RequestOptions) =>
      keep(await http.request<ConsoleSession>({ method: 'GET', path: '/auth/session', options })),
    signOut: async (options?: RequestOptions) => {
      await http.request<Record<string, never>>({ method: 'DELETE', path: '/auth/session', options });
      http.setCsrfToken(null);
    },
    setPassword: (input: SetPasswordRequest, options?: RequestOptions) =>
      http.request<{ user: ConsoleUser }>({ method: 'POST', path: '/auth/password', body: input, options }),
    /**
     * The second step of a sign-in whose `step` is MFA_CODE: a code of the authenticator app, or a recovery code.
     * The session is signed in under a new id; its new CSRF token is kept.
     */
    verifyMfa: async (input: MfaCodeRequest, options?: RequestOptions) => {
      const verified = await http.request<MfaVerified>({
        method: 'POST',
        path: '/auth/mfa/verify',
        body: input,
        options,
      });
      keep(verified.session);
      return verified;
    },
    /** Two-step sign-in of the session's user: set up or not, recovery codes left, required by the account. */
    mfaStatus: (options?: RequestOptions) => http.request<MfaStatus>({ method: 'GET', path: '/auth/mfa', options }),
    /** A new TOTP secret (an otpauth:// URI for a QR code, and the key as text); it counts once confirmed. */
    startTotp: (options?: RequestOptions) =>
      http.request<TotpEnrolment>({ method: 'POST', path: '/auth/mfa/totp', body: {}, options }),
    /**
     * Confirms the authenticator with a code of it: answers the recovery codes (shown once) and the session, signed
     * in now if it had to set it up (its new CSRF token is kept). Not retried: the codes are in this answer only.
     */
    confirmTotp: async (input: TotpCodeRequest, options?: RequestOptions) => {
      const confirmed = await http.request<TotpConfirmed>({
        method: 'POST',
        path: '/auth/mfa/totp/confirm',
        body: input,
        options,
      });
      keep(confirmed.session);
      return confirmed;
    },
    /** New recovery codes in place of the old ones, for a current code of the authenticator. */
    renewRecoveryCodes: (input: TotpCodeRequest, options?: RequestOptions) =>
      http.request<NewRecoveryCodes>({ method: 'POST', path: '/auth/mfa/recovery-codes', body: input, options }),
  };
}

/**
 * An account admin's side of the console's users (scope account.admin; a signed-in console session only): the
 * account's users, a reset of one's two-step sign-in, and the account's requirement of it.
 */
export function consoleUsersApi(http: Transport) {
  return {
    list: (options?: RequestOptions) =>
      http.request<ConsoleUserList>({ method: 'GET', path: '/internal/v1/users', options }),
    /** Removes the user's authenticator and recovery codes and ends their sessions. */
    resetMfa: (userId: string, options?: WriteOptions) =>
      http.request<ConsoleUser>({
        method: 'DELETE',
        path: `/internal/v1/users/${encodeURIComponent(userId)}/mfa`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    settings: (options?: RequestOptions) =>
      http.request<AccountUserSettings>({ method: 'GET', path: '/internal/v1/account/user-settings', options }),
    /** mfa_required true ends at once the sessions of the account's users who have not set up two-step sign-in. */
    updateSettings: (input: AccountUserSettingsUpdate, options?: WriteOptions) =>
      http.request<AccountUserSettings>({
        method: 'PUT',
        path: '/internal/v1/account/user-settings',
        body: input,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };
}
