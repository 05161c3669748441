import type { Executor } from '../../db/database.js';
import type { RecordDraftsTable } from './drafts.tables.js';

type Key = Pick<RecordDraftsTable, 'account_id' | 'user_id' | 'record_id'>;

/** Every statement names the account, the user and the record: a draft is only ever its owner's. */
export const draftsRepository = {
  async find(ex: Executor, key: Key): Promise<RecordDraftsTable | undefined> {
    return ex
      .selectFrom('record_drafts')
      .selectAll()
      .where('account_id', '=', key.account_id)
      .where('user_id', '=', key.user_id)
      .where('record_id', '=', key.record_id)
      .executeTakeFirst();
  },

  async upsert(ex: Executor, row: RecordDraftsTable): Promise<void> {
    await ex
      .insertInto('record_drafts')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'user_id', 'record_id'])
          .doUpdateSet({ version: row.version, lines_json: row.lines_json, updated_at: row.updated_at }),
      )
      .execute();
  },

  /** Every draft of the account's users (a sandbox reset: the records they were of are gone). */
  async purgeAccount(ex: Executor, accountId: string): Promise<void> {
    await ex.deleteFrom('record_drafts').where('account_id', '=', accountId).execute();
  },

  async delete(ex: Executor, key: Key): Promise<void> {
    await ex
      .deleteFrom('record_drafts')
      .where('account_id', '=', key.account_id)
      .where('user_id', '=', key.user_id)
      .where('record_id', '=', key.record_id)
      .execute();
  },
};
