import type { Executor } from '../../db/database.js';
import type { IdempotencyKeysTable } from './idempotency.tables.js';

/** A key is the client's own: the same key of two clients are two keys. */
export type IdempotencyKeyIds = Pick<IdempotencyKeysTable, 'account_id' | 'client_id' | 'idempotency_key'>;
type Ids = IdempotencyKeyIds;

export const idempotencyRepository = {
  /** Inserts an IN_FLIGHT row; false when the key already has a row. */
  async claim(
    db: Executor,
    row: Ids & Pick<IdempotencyKeysTable, 'request_hash' | 'lock_token' | 'locked_until' | 'created_at' | 'expires_at'>,
  ): Promise<boolean> {
    const result = await db
      .insertInto('idempotency_keys')
      .values({ ...row, state: 'IN_FLIGHT', response_status: null, response_body: null })
      .onConflict((oc) => oc.columns(['account_id', 'client_id', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  async find(db: Executor, ids: Ids): Promise<IdempotencyKeysTable | undefined> {
    return db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .executeTakeFirst();
  },

  async deleteExpired(db: Executor, ids: Ids, now: number): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .where('expires_at', '<=', now)
      .execute();
  },

  async takeOver(db: Executor, ids: Ids, oldToken: string, newToken: string, lockedUntil: number): Promise<boolean> {
    const result = await db
      .updateTable('idempotency_keys')
      .set({ lock_token: newToken, locked_until: lockedUntil })
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .where('state', '=', 'IN_FLIGHT')
      .where('lock_token', '=', oldToken)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Stores the answer; false when the claim's lock token no longer holds the key. */
  async complete(db: Executor, ids: Ids, lockToken: string, status: number, body: string): Promise<boolean> {
    const result = await db
      .updateTable('idempotency_keys')
      .set({ state: 'DONE', response_status: status, response_body: body })
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .where('state', '=', 'IN_FLIGHT')
      .where('lock_token', '=', lockToken)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async release(db: Executor, ids: Ids, lockToken: string): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .where('state', '=', 'IN_FLIGHT')
      .where('lock_token', '=', lockToken)
      .execute();
  },

  async deleteAllExpired(db: Executor, now: number): Promise<number> {
    const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
