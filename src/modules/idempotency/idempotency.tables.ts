export interface IdempotencyKeysTable {
  account_id: string;
  client_id: string;
  idempotency_key: string;
  /** sha256 of method, path and canonical JSON body */
  request_hash: string;
  /** IN_FLIGHT while the first request runs, DONE once its response is stored. */
  state: 'IN_FLIGHT' | 'DONE';
  /** An IN_FLIGHT row whose lock has expired belongs to a request that died; it may be taken over. */
  locked_until: number;
  lock_token: string;
  response_status: number | null;
  response_body: string | null;
  created_at: number;
  expires_at: number;
}

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}
