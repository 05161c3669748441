export interface UsersTable {
  account_id: string;
  user_id: string;
  /** lower-cased; unique across the service */
  email: string;
  role: string;
  /** argon2id (PHC string); null until the user sets a first password through a one-time link */
  password_hash: string | null;
  /** unused since migration 0013 (sign-in throttles per address replaced the per-user lockout); kept at 0 */
  failed_sign_ins: number;
  /** unused since migration 0013; kept null */
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  disabled_at: number | null;
}

export interface UserSessionsTable {
  /** sha256 of the session id, hex: the cookie holds the id, the database never does */
  session_hash: string;
  account_id: string;
  user_id: string;
  /** the session's data as @fastify/session keeps it (the cookie's options, the CSRF secret) */
  data_json: string;
  created_at: number;
  last_seen_at: number;
  /** absolute expiry (microseconds): no activity extends a session past it */
  expires_at: number;
  /**
   * The WebAuthn challenge (base64url) of the session's passkey ceremony in progress, its kind (REGISTRATION,
   * AUTHENTICATION) and until when it may be answered (migration 0017): taken by the first answer, right or wrong.
   * Written only by passkeys.repository.ts; the session store's writes leave them as they are.
   */
  passkey_challenge?: string | null;
  passkey_ceremony?: string | null;
  passkey_challenge_expires_at?: number | null;
}

export interface UserPasswordLinksTable {
  /** sha256 of the link's token, hex */
  link_hash: string;
  account_id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

/** Failed attempts under one throttle key (sign-in-throttle.ts): (email, address), address, or a user's second step. */
export interface SignInThrottlesTable {
  /** sha256 of the key, hex: an email someone typed is never stored */
  throttle_key: string;
  /** attempts counted as failures (each is counted before its password or code is checked; a success gives back) */
  failures: number;
  /** microseconds; attempts under the key are refused until then */
  blocked_until: number | null;
  updated_at: number;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

declare module '../../db/database.js' {
  interface Database {
    users: UsersTable;
    user_sessions: UserSessionsTable;
    user_password_links: UserPasswordLinksTable;
    service_secrets: ServiceSecretsTable;
    sign_in_throttles: SignInThrottlesTable;
  }
}
