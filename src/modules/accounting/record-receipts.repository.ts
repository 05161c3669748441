import type { Executor } from '../../db/database.js';
import { isRecord } from '../../lib/guards.js';

/**
 * A record's receipts changed: its stored list, its receipt links, and the version and updated_at that every change
 * moves.
 */
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

  /** Keeps the record's receipt links (accounting_record_receipts) with its list: one receipt listed or no longer. */
  async link(ex: Executor, accountId: string, recordId: string, receiptId: string): Promise<void> {
    await ex
      .insertInto('accounting_record_receipts')
      .values({ account_id: accountId, record_id: recordId, receipt_id: receiptId })
      .onConflict((oc) => oc.columns(['account_id', 'record_id', 'receipt_id']).doNothing())
      .execute();
  },

  async unlink(ex: Executor, accountId: string, recordId: string, receiptId: string): Promise<void> {
    await ex
      .deleteFrom('accounting_record_receipts')
      .where('account_id', '=', accountId)
      .where('record_id', '=', recordId)
      .where('receipt_id', '=', receiptId)
      .execute();
  },

  /**
   * Of `ids`, each listed by a record of the account, with the records listing it (the receipt index: one range
   * an id). A receipt listed twice was attached to two records before 0030's rule of one record (docs/receipts.md).
   */
  async listing(
    ex: Executor,
    accountId: string,
    ids: readonly string[],
  ): Promise<{ receipt_id: string; record_id: string }[]> {
    if (ids.length === 0) return [];
    return ex
      .selectFrom('accounting_record_receipts')
      .select(['receipt_id', 'record_id'])
      .where('account_id', '=', accountId)
      .where('receipt_id', 'in', ids)
      .orderBy('receipt_id')
      .orderBy('record_id')
      .execute();
  },
};

/** The distinct receipt ids of a stored list (storedForm.receipts: an array of objects with an `id`). */
export function receiptIdsOf(json: string | null): string[] {
  if (json === null || json === '[]') return [];
  const list: unknown = JSON.parse(json);
  if (!Array.isArray(list)) return [];
  const ids = new Set<string>();
  for (const r of list as unknown[]) if (isRecord(r) && typeof r.id === 'string') ids.add(r.id);
  return [...ids];
}
