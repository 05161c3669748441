import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { FieldsTable } from './fields.tables.js';

export const fieldsRepository = {
  async insert(ex: Executor, row: FieldsTable): Promise<void> {
    await ex.insertInto('fields').values(row).execute();
  },

  async find(ex: Executor, accountId: string, fieldId: string): Promise<FieldsTable | undefined> {
    return ex
      .selectFrom('fields')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('svc_id', '=', fieldId)
      .executeTakeFirst();
  },

  async findByName(ex: Executor, accountId: string, name: string): Promise<FieldsTable | undefined> {
    return ex
      .selectFrom('fields')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .orderBy('svc_id')
      .limit(1)
      .executeTakeFirst();
  },

  async findByRemoteIds(ex: Executor, accountId: string, remoteIds: readonly string[]): Promise<FieldsTable[]> {
    if (remoteIds.length === 0) return [];
    return ex
      .selectFrom('fields')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('remote_id', 'in', remoteIds)
      .execute();
  },

  async findMany(ex: Executor, accountId: string, fieldIds: readonly string[]): Promise<FieldsTable[]> {
    if (fieldIds.length === 0) return [];
    return ex
      .selectFrom('fields')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('svc_id', 'in', fieldIds)
      .execute();
  },

  /** How many fields the account has. */
  async count(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('fields')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Keyset page in creation order (identifiers sort by creation time); fetches limit + 1 rows. */
  async list(
    ex: Executor,
    accountId: string,
    filter: { fieldIds?: readonly string[]; afterId?: string; limit: number },
  ): Promise<FieldsTable[]> {
    let query = ex.selectFrom('fields').selectAll().where('account_id', '=', accountId);
    if (filter.fieldIds) query = query.where('svc_id', 'in', filter.fieldIds);
    if (filter.afterId !== undefined) query = query.where('svc_id', '>', filter.afterId);
    return query
      .orderBy('svc_id')
      .limit(filter.limit + 1)
      .execute();
  },

  /**
   * Applies the given members in one statement (no read-modify-write race) and moves updated_at only when a
   * value really changes; every SET expression sees the old row in both dialects.
   */
  async update(
    ex: Executor,
    accountId: string,
    fieldId: string,
    changes: { name: string | null; is_disabled: number | null },
    now: number,
  ): Promise<FieldsTable | undefined> {
    const name = sql<string>`coalesce(${changes.name}, name)`;
    const disabled = sql<number>`coalesce(${changes.is_disabled}, is_disabled)`;
    return ex
      .updateTable('fields')
      .set({
        name,
        is_disabled: disabled,
        updated_at: sql<number>`case when ${name} <> name or ${disabled} <> is_disabled then ${now} else updated_at end`,
      })
      .where('account_id', '=', accountId)
      .where('svc_id', '=', fieldId)
      .returningAll()
      .executeTakeFirst();
  },

  /** Every field of the account (and, through the foreign key, their values); how many. */
  async deleteAll(ex: Executor, accountId: string): Promise<number> {
    const result = await ex.deleteFrom('fields').where('account_id', '=', accountId).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  async delete(ex: Executor, accountId: string, fieldId: string): Promise<boolean> {
    const result = await ex
      .deleteFrom('fields')
      .where('account_id', '=', accountId)
      .where('svc_id', '=', fieldId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
