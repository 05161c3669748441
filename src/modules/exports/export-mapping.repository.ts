import type { Executor } from '../../db/database.js';
import type { AccountExportMappingsTable } from './export-mapping.tables.js';

export const exportMappingRepository = {
  async find(ex: Executor, accountId: string): Promise<AccountExportMappingsTable | undefined> {
    return ex.selectFrom('account_export_mappings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  },

  async upsert(ex: Executor, row: AccountExportMappingsTable): Promise<void> {
    await ex
      .insertInto('account_export_mappings')
      .values(row)
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ mapping_json: row.mapping_json, updated_at: row.updated_at }),
      )
      .execute();
  },

  async delete(ex: Executor, accountId: string): Promise<void> {
    await ex.deleteFrom('account_export_mappings').where('account_id', '=', accountId).execute();
  },
};
