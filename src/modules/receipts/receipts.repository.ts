import type { Executor } from '../../db/database.js';
import type { ReceiptsTable } from './receipts.tables.js';

/** Every statement names the account: a receipt is only ever its account's. */
export const receiptsRepository = {
  async findBySha(ex: Executor, accountId: string, sha256: string): Promise<ReceiptsTable | undefined> {
    return ex
      .selectFrom('receipts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('sha256', '=', sha256)
      .executeTakeFirst();
  },

  async find(ex: Executor, accountId: string, id: string): Promise<ReceiptsTable | undefined> {
    return ex
      .selectFrom('receipts')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** Which of `ids` the account stores. */
  async existing(ex: Executor, accountId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await ex
      .selectFrom('receipts')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  },

  /**
   * Inserts the receipt unless the account has its bytes already (uploaded before, or by a concurrent upload of
   * the same file); whether it did.
   */
  async insert(ex: Executor, row: ReceiptsTable): Promise<boolean> {
    const result = await ex
      .insertInto('receipts')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'sha256']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async count(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('receipts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
