import type { Executor } from '../../db/database.js';
import type { VendorsTable } from './integrations.tables.js';

export const vendorsRepository = {
  /** Inserts the vendor; false when its id is taken. */
  async insert(ex: Executor, vendor: VendorsTable): Promise<boolean> {
    const result = await ex
      .insertInto('vendors')
      .values(vendor)
      .onConflict((oc) => oc.column('vendor_id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },

  async find(ex: Executor, vendorId: string): Promise<VendorsTable | undefined> {
    return ex.selectFrom('vendors').selectAll().where('vendor_id', '=', vendorId).executeTakeFirst();
  },

  async list(ex: Executor): Promise<VendorsTable[]> {
    return ex.selectFrom('vendors').selectAll().orderBy('vendor_id').execute();
  },

  /** Sets disabled_at (null: enabled again); answers the vendor as it is now, or undefined when unknown. */
  async setDisabled(
    ex: Executor,
    vendorId: string,
    disabledAt: number | null,
    now: number,
  ): Promise<VendorsTable | undefined> {
    return ex
      .updateTable('vendors')
      .set({ disabled_at: disabledAt, updated_at: now })
      .where('vendor_id', '=', vendorId)
      .returningAll()
      .executeTakeFirst();
  },
};
