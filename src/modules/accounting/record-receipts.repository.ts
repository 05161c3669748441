import type { Executor } from '../../db/database.js';

/** A record's receipts changed: its stored list, and the version and updated_at that every change moves. */
export const recordReceiptsRepository = {
  async update(
    ex: Executor,
    accountId: string,
    id: string,
    version: number,
    change: { receiptsJson: string; updatedAt: number },
  ): Promise<boolean> {
    const result = await ex
      .updateTable('accounting_records')
      .set({ version: version + 1, updated_at: change.updatedAt })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('version', '=', version)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) return false;
    await ex
      .updateTable('accounting_record_details')
      .set({ receipts_json: change.receiptsJson })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
    return true;
  },
};
