export interface AccountsTable {
  account_id: string;
  /** base64 AES key that seals this account's pagination cursors. */
  cursor_key: string;
  created_at: number;
}

export interface OauthClientsTable {
  account_id: string;
  client_id: string;
  /** sha256 of the 256-bit random secret, hex. */
  secret_hash: string;
  /** space-separated */
  scopes: string;
  created_at: number;
  revoked_at: number | null;
  /** A partner app's connection to the account (made at consent): the app; null for an API client. */
  app_id: string | null;
  /** The console user who connected the app; null for an API client. */
  granted_by: string | null;
  /** sha256 of the secret before the last rotation, still accepted until previous_secret_expires_at */
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
  /** What the admin calls an API client ('' when unnamed; a partner app's connection: ''). */
  name: string;
  /** When the client last obtained an access token, written at most once a minute; null: not since 0029. */
  last_used_at: number | null;
}

/** A partner app the operator registered (`svc apps create`): the OAuth client of the authorization code flow. */
export interface OauthAppsTable {
  app_id: string;
  name: string;
  client_type: 'confidential' | 'public';
  /** sha256 of the secret, hex; null for a public client (PKCE alone) */
  secret_hash: string | null;
  /** JSON array of the exact redirect URIs */
  redirect_uris_json: string;
  created_at: number;
  updated_at: number;
  disabled_at: number | null;
}

/** An authorization code (RFC 6749 §4.1.2): single-use, short-lived, bound to connection, redirect URI, verifier. */
export interface OauthCodesTable {
  account_id: string;
  code_hash: string;
  /** the connection (oauth_clients row) the code was issued to */
  client_id: string;
  app_id: string;
  redirect_uri: string;
  /** PKCE S256 challenge (RFC 7636) */
  code_challenge: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** the refresh family its exchange started */
  family_id: string | null;
}

/** A refresh token: rotated on use; a used one is kept until it expires, to recognise its replay. */
export interface RefreshTokensTable {
  account_id: string;
  token_hash: string;
  family_id: string;
  client_id: string;
  app_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface AccessTokensTable {
  account_id: string;
  /** sha256 of the 256-bit random token, hex; the token itself is never stored. */
  token_hash: string;
  client_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
  /** the refresh family that issued it (authorization code); null for client credentials */
  family_id: string | null;
}

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    accounts: AccountsTable;
    oauth_clients: OauthClientsTable;
    access_tokens: AccessTokensTable;
    oauth_apps: OauthAppsTable;
    oauth_codes: OauthCodesTable;
    refresh_tokens: RefreshTokensTable;
  }
}
