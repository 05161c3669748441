import type { ByDialect, Executor } from '../../db/database.js';
import type { SignInThrottlesTable } from './users.tables.js';

/** The rows of the keys, locked until the transaction ends: SQLite's write transaction holds the only write lock. */
const readLocked: ByDialect<(ex: Executor, keys: string[]) => Promise<SignInThrottlesTable[]>> = {
  sqlite: (ex, keys) =>
    ex.selectFrom('sign_in_throttles').selectAll().where('throttle_key', 'in', keys).orderBy('throttle_key').execute(),
  // Locked in key order (the lock is taken above the sort), as every attempt does: no two attempts deadlock.
  postgres: (ex, keys) =>
    ex
      .selectFrom('sign_in_throttles')
      .selectAll()
      .where('throttle_key', 'in', keys)
      .orderBy('throttle_key')
      .forUpdate()
      .execute(),
};

export const throttleRepository = {
  /**
   * The counters of the keys (hashes), locked for the caller's write transaction; a key never seen gets a row with
   * no failures first, so that concurrent attempts under it wait for each other.
   */
  async lock(ex: Executor, keys: string[], now: number): Promise<SignInThrottlesTable[]> {
    const sorted = [...keys].sort();
    await ex
      .insertInto('sign_in_throttles')
      .values(sorted.map((key) => ({ throttle_key: key, failures: 0, blocked_until: null, updated_at: now })))
      .onConflict((oc) => oc.column('throttle_key').doNothing())
      .execute();
    const rows = await readLocked[ex.dialect](ex, sorted);
    return rows.map((row) => ({
      ...row,
      failures: Number(row.failures),
      blocked_until: row.blocked_until === null ? null : Number(row.blocked_until),
      updated_at: Number(row.updated_at),
    }));
  },

  async update(ex: Executor, row: SignInThrottlesTable): Promise<void> {
    await ex
      .updateTable('sign_in_throttles')
      .set({ failures: row.failures, blocked_until: row.blocked_until, updated_at: row.updated_at })
      .where('throttle_key', '=', row.throttle_key)
      .execute();
  },

  async delete(ex: Executor, key: string): Promise<void> {
    await ex.deleteFrom('sign_in_throttles').where('throttle_key', '=', key).execute();
  },

  /** Deletes counters untouched since `before` that refuse nothing any more (maintenance). */
  async deleteStale(ex: Executor, before: number, now: number): Promise<number> {
    const result = await ex
      .deleteFrom('sign_in_throttles')
      .where('updated_at', '<', before)
      .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
