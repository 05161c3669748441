import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import type { IdempotencyKeysTable } from './idempotency.tables.js';

/** A key is the client's own: the same key of two clients are two keys. */
export type IdempotencyKeyIds = Pick<IdempotencyKeysTable, 'account_id' | 'client_id' | 'idempotency_key'>;
type Ids = IdempotencyKeyIds;

/** An answer to store under a key. */
export type AnswerRow = Ids &
  Pick<IdempotencyKeysTable, 'request_hash' | 'response_status' | 'response_body' | 'created_at' | 'expires_at'>;

/**
 * The key as one number of PostgreSQL's advisory lock space (64 bits of its SHA-256). Two keys that share a
 * number would only refuse each other while both run: at 64 bits, never in practice.
 */
function lockNumber(ids: Ids): string {
  return createHash('sha256')
    .update(`${ids.account_id}\0${ids.client_id}\0${ids.idempotency_key}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
}

export const idempotencyRepository = {
  async find(ex: Executor, ids: Ids): Promise<IdempotencyKeysTable | undefined> {
    return ex
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', ids.account_id)
      .where('client_id', '=', ids.client_id)
      .where('idempotency_key', '=', ids.idempotency_key)
      .executeTakeFirst();
  },

  /**
   * Claims the key for the write transaction `ex`; false when another request holds it or has answered under it
   * since `now`'s look. Never waits for another request.
   */
  claim: {
    // An advisory lock of the transaction: released by its commit or rollback, or by the death of its connection
    // (a process that is killed takes its claims with it). try: a second claimant is refused, never queued.
    async postgres(ex: Executor, ids: Ids): Promise<boolean> {
      const { rows } = await sql<{ claimed: boolean }>`
        select pg_try_advisory_xact_lock(${lockNumber(ids)}::bigint) as claimed`.execute(ex);
      return rows[0]?.claimed === true;
    },
    // One writer at a time (BEGIN IMMEDIATE): holding the write transaction is holding every key. Only an answer
    // stored while this one waited for the lock (another process's) stands in the way.
    async sqlite(ex: Executor, ids: Ids, now: number): Promise<boolean> {
      const answered = await ex
        .selectFrom('idempotency_keys')
        .select('state')
        .where('account_id', '=', ids.account_id)
        .where('client_id', '=', ids.client_id)
        .where('idempotency_key', '=', ids.idempotency_key)
        .where('state', '=', 'DONE')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return answered === undefined;
    },
  } satisfies ByDialect<(ex: Executor, ids: Ids, now: number) => Promise<boolean>>,

  /** Marks the start of the claimed work, so that a business error can undo the work and keep the claim. */
  async savepoint(ex: Executor): Promise<void> {
    await sql`savepoint idempotent_work`.execute(ex);
  },

  async undoWork(ex: Executor): Promise<void> {
    await sql`rollback to savepoint idempotent_work`.execute(ex);
  },

  /**
   * Stores the answer; false when the key already holds a standing answer (another request's). Written over: a
   * row past its retention that the sweep has not deleted yet, and the IN_FLIGHT claim row of an earlier version
   * for this same request (that version's own write is guarded by it, and fails once the row is DONE).
   */
  async store(ex: Executor, row: AnswerRow): Promise<boolean> {
    const result = await ex
      .insertInto('idempotency_keys')
      .values({ ...row, state: 'DONE', locked_until: 0, lock_token: '' })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'client_id', 'idempotency_key'])
          .doUpdateSet((eb) => ({
            state: 'DONE',
            request_hash: eb.ref('excluded.request_hash'),
            response_status: eb.ref('excluded.response_status'),
            response_body: eb.ref('excluded.response_body'),
            created_at: eb.ref('excluded.created_at'),
            expires_at: eb.ref('excluded.expires_at'),
            locked_until: 0,
            lock_token: '',
          }))
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.expires_at', '<=', row.created_at),
              eb.and([
                eb('idempotency_keys.state', '=', 'IN_FLIGHT'),
                eb('idempotency_keys.request_hash', '=', eb.ref('excluded.request_hash')),
              ]),
            ]),
          ),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  async deleteAllExpired(ex: Executor, now: number): Promise<number> {
    const result = await ex.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
