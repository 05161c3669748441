import type { ByDialect, Executor } from '../../db/database.js';
import { nowMicros } from '../../lib/clock.js';

/** The clock's value, locked until the transaction ends: SQLite's write transaction holds the only write lock. */
const readLocked: ByDialect<(ex: Executor, accountId: string) => Promise<{ last_updated_at: number }>> = {
  sqlite: (ex, accountId) =>
    ex
      .selectFrom('account_record_clocks')
      .select('last_updated_at')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  postgres: (ex, accountId) =>
    ex
      .selectFrom('account_record_clocks')
      .select('last_updated_at')
      .where('account_id', '=', accountId)
      .forUpdate()
      .executeTakeFirstOrThrow(),
};

/**
 * The per-account record clock: why polling by updated_at never misses a change (docs/accounting.md).
 *
 * Every transaction that changes records of an account first locks the account's clock row, takes its
 * updated_at values from it (after the last one handed out, never before now), and commits while still
 * holding the lock. So the commits of one account are serialised in updated_at order, and since PostgreSQL
 * makes a commit visible before it releases its row locks, no snapshot holds a record with a greater
 * updated_at without every smaller one. SQLite's write transactions (BEGIN IMMEDIATE) are serialised already.
 */
export const recordClock = {
  /** Locks the account's clock until the transaction ends; returns the last updated_at handed out. */
  async lock(ex: Executor, accountId: string): Promise<number> {
    await ex
      .insertInto('account_record_clocks')
      .values({ account_id: accountId, last_updated_at: 0 })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
    const row = await readLocked[ex.dialect](ex, accountId);
    return Number(row.last_updated_at);
  },

  /**
   * Hands out `count` consecutive values after `last` (the locked clock's value) and stores the greatest;
   * returns the first. Values stay distinct and increasing even when the wall clock steps back.
   */
  async advance(ex: Executor, accountId: string, last: number, count: number): Promise<number> {
    const first = Math.max(nowMicros(), last + 1);
    await ex
      .updateTable('account_record_clocks')
      .set({ last_updated_at: first + count - 1 })
      .where('account_id', '=', accountId)
      .execute();
    return first;
  },
};
