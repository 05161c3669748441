import type { Executor } from '../../db/database.js';
import type { AccountReviewSettingsTable } from './accounting.tables.js';

export const reviewSettingsRepository = {
  async find(ex: Executor, accountId: string): Promise<AccountReviewSettingsTable | undefined> {
    return ex.selectFrom('account_review_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  },

  async upsert(ex: Executor, row: AccountReviewSettingsTable): Promise<void> {
    await ex
      .insertInto('account_review_settings')
      .values(row)
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ auto_submit: row.auto_submit, updated_at: row.updated_at }),
      )
      .execute();
  },
};
