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

  /**
   * The records of the account whose stored receipts mention any of `ids` (by the quoted id in their JSON), with
   * that JSON: the caller parses it to be sure. Receipt ids are svc's own (`rcpt_` and base32), nothing a LIKE
   * pattern would read as more than itself but `_`, which matches itself too.
   */
  async mentioning(
    ex: Executor,
    accountId: string,
    ids: readonly string[],
  ): Promise<{ id: string; receipts_json: string | null }[]> {
    if (ids.length === 0) return [];
    return ex
      .selectFrom('accounting_record_details')
      .select(['id', 'receipts_json'])
      .where('account_id', '=', accountId)
      .where((eb) => eb.or(ids.map((id) => eb('receipts_json', 'like', `%"${id}"%`))))
      .execute();
  },
};
