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
  Passkey,
  PasskeyAuthenticationOptions,
  PasskeyAuthenticationRequest,
  PasskeyList,
  PasskeyRegistered,
  PasskeyRegistrationOptions,
  PasskeyRegistrationRequest,
  SetPasswordRequest,
  SignInRequest,
  TotpCodeRequest,
  TotpConfirmed,
  TotpEnrolment,
} from './types.js';

/**
 * The console's session (`session: true` clients in a browser): sign-in (a second step with a code or a passkey for
 * a user with two-step sign-in: the answer's `step` and `mfa_factors` say), the signed-in user, sign-out, a password
 * from a one-time link, and the user's own two-step sign-in (an authenticator app, passkeys). The CSRF token of every session answered is kept and sent with every write.
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
    /** The user's passkeys and security keys: names and when they were added and last used. */
    listPasskeys: (options?: RequestOptions) =>
      http.request<PasskeyList>({ method: 'GET', path: '/auth/mfa/passkeys', options }),
    /**
     * Adding a passkey, first half: the options to give `startRegistration({ optionsJSON })` of
     * @simplewebauthn/browser (a new challenge for this session, answered once within their `timeout`).
     */
    passkeyRegistrationOptions: (options?: RequestOptions) =>
      http.request<PasskeyRegistrationOptions>({
        method: 'POST',
        path: '/auth/mfa/passkeys/registration-options',
        body: {},
        options,
      }),
    /**
     * Adding a passkey, second half: what `startRegistration` answered, with a name. A first second factor comes with
     * recovery codes (shown once); a session that had to set up two-step sign-in is signed in now (its new CSRF token
     * is kept). Not retried: the challenge is answered once.
     */
    registerPasskey: async (input: PasskeyRegistrationRequest, options?: RequestOptions) => {
      const registered = await http.request<PasskeyRegistered>({
        method: 'POST',
        path: '/auth/mfa/passkeys',
        body: input,
        options,
      });
      keep(registered.session);
      return registered;
    },
    /** Removes a passkey (409 when it is the last second factor and the account requires two-step sign-in). */
    removePasskey: (passkeyId: string, options?: RequestOptions) =>
      http.request<Passkey>({
        method: 'DELETE',
        path: `/auth/mfa/passkeys/${encodeURIComponent(passkeyId)}`,
        options,
      }),
    /**
     * The second step with a passkey, first half (a session whose `mfa_factors` include PASSKEY): the options to give
     * `startAuthentication({ optionsJSON })` of @simplewebauthn/browser.
     */
    passkeyAuthenticationOptions: (options?: RequestOptions) =>
      http.request<PasskeyAuthenticationOptions>({
        method: 'POST',
        path: '/auth/mfa/passkeys/authentication-options',
        body: {},
        options,
      }),
    /**
     * The second step with a passkey, second half: what `startAuthentication` answered. The session is signed in
     * under a new id; its new CSRF token is kept.
     */
    verifyPasskey: async (input: PasskeyAuthenticationRequest, options?: RequestOptions) => {
      const verified = await http.request<MfaVerified>({
        method: 'POST',
        path: '/auth/mfa/passkeys/verify',
        body: input,
        options,
      });
      keep(verified.session);
      return verified;
    },
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
    /** Removes the user's authenticator, passkeys and recovery codes and ends their sessions. */
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
