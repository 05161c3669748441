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
}

export interface AccessTokensTable {
  account_id: string;
  /** sha256 of the 256-bit random token, hex; the token itself is never stored. */
  token_hash: string;
  client_id: string;
  scopes: string;
  created_at: number;
  expires_at: number;
}

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    accounts: AccountsTable;
    oauth_clients: OauthClientsTable;
    access_tokens: AccessTokensTable;
  }
}
