import type { Executor } from '../../db/database.js';
import type { AccountReceiptPoliciesTable } from './accounting.tables.js';

export const receiptPolicyRepository = {
  async find(ex: Executor, accountId: string): Promise<AccountReceiptPoliciesTable | undefined> {
    return ex.selectFrom('account_receipt_policies').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  },

  async upsert(ex: Executor, row: AccountReceiptPoliciesTable): Promise<void> {
    await ex
      .insertInto('account_receipt_policies')
      .values(row)
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ rules_json: row.rules_json, updated_at: row.updated_at }),
      )
      .execute();
  },
};
