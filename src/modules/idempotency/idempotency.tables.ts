export interface IdempotencyKeysTable {
  account_id: string;
  client_id: string;
  idempotency_key: string;
  /** sha256 of method, path and canonical JSON body */
  request_hash: string;
  /**
   * DONE: the answer is stored. IN_FLIGHT rows were the claims of earlier versions, written before the work;
   * claims now live in the work's transaction (idempotency.service.ts) and such a row is written over.
   */
  state: 'IN_FLIGHT' | 'DONE';
  /** The lock of an IN_FLIGHT claim row of an earlier version; 0 and '' in rows written now. */
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
