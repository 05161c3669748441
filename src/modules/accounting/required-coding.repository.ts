import type { Executor } from '../../db/database.js';

export const requiredCodingRepository = {
  async fieldIds(ex: Executor, accountId: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('account_required_fields')
      .select('field_id')
      .where('account_id', '=', accountId)
      .orderBy('field_id')
      .execute();
    return rows.map((r) => r.field_id);
  },

  /** Replaces the account's list (in the caller's transaction). */
  async replace(ex: Executor, accountId: string, fieldIds: readonly string[], now: number): Promise<void> {
    await ex.deleteFrom('account_required_fields').where('account_id', '=', accountId).execute();
    if (fieldIds.length === 0) return;
    await ex
      .insertInto('account_required_fields')
      .values(fieldIds.map((field_id) => ({ account_id: accountId, field_id, created_at: now })))
      .execute();
  },
};
