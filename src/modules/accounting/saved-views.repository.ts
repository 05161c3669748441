import type { Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/failures.js';
import type { SavedViewsTable } from './saved-views.tables.js';

interface Owner {
  account_id: string;
  user_id: string;
}

/** Every statement names the account and the user: a view is only ever its owner's. */
export const savedViewsRepository = {
  /** The user's own views and those others of the account shared. */
  async list(ex: Executor, owner: Owner): Promise<SavedViewsTable[]> {
    return ex
      .selectFrom('saved_views')
      .selectAll()
      .where('account_id', '=', owner.account_id)
      .where((eb) => eb.or([eb('user_id', '=', owner.user_id), eb('shared', '=', 1)]))
      .orderBy('name_key')
      .orderBy('id')
      .execute();
  },

  async count(ex: Executor, owner: Owner): Promise<number> {
    const row = await ex
      .selectFrom('saved_views')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', owner.account_id)
      .where('user_id', '=', owner.user_id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** The view if the user sees it: their own, or shared with the account. */
  async findVisible(ex: Executor, owner: Owner, id: string): Promise<SavedViewsTable | undefined> {
    return ex
      .selectFrom('saved_views')
      .selectAll()
      .where('account_id', '=', owner.account_id)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('user_id', '=', owner.user_id), eb('shared', '=', 1)]))
      .executeTakeFirst();
  },

  async findByName(ex: Executor, owner: Owner, nameKey: string): Promise<SavedViewsTable | undefined> {
    return ex
      .selectFrom('saved_views')
      .selectAll()
      .where('account_id', '=', owner.account_id)
      .where('user_id', '=', owner.user_id)
      .where('name_key', '=', nameKey)
      .executeTakeFirst();
  },

  /** False when the user has a view of that name already (a race the service's check lost). */
  async insert(ex: Executor, row: SavedViewsTable): Promise<boolean> {
    try {
      await ex.insertInto('saved_views').values(row).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  },

  /** False when the new name is another view's of the user. */
  async update(
    ex: Executor,
    row: Pick<
      SavedViewsTable,
      'account_id' | 'user_id' | 'id' | 'name' | 'name_key' | 'filters_json' | 'shared' | 'updated_at'
    >,
  ): Promise<boolean> {
    try {
      await ex
        .updateTable('saved_views')
        .set({
          name: row.name,
          name_key: row.name_key,
          filters_json: row.filters_json,
          shared: row.shared,
          updated_at: row.updated_at,
        })
        .where('account_id', '=', row.account_id)
        .where('user_id', '=', row.user_id)
        .where('id', '=', row.id)
        .execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  },

  async delete(ex: Executor, owner: Owner, id: string): Promise<number> {
    const result = await ex
      .deleteFrom('saved_views')
      .where('account_id', '=', owner.account_id)
      .where('user_id', '=', owner.user_id)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
