import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { FieldValueShape, SHOWN_VALUE_COLUMNS, type ShownValueRow } from './field-values.schemas.js';

/** Listing a field's values: keyset pages in creation order, written as the answer's JSON array of values. */

export interface ListFilter {
  svcIds: string[] | null;
  remoteIds: string[] | null;
  valueIds: string[] | null;
  value: string | null;
  afterId?: string;
  limit: number;
}

/** The field's values matching the filter after the cursor, in creation order, shown columns only. */
function listQuery(ex: Executor, accountId: string, fieldId: string, filter: ListFilter) {
  // Only the shown columns: building row objects is most of a page's cost, and the two long key columns
  // were a third of it.
  let query = ex
    .selectFrom('field_values')
    .select(SHOWN_VALUE_COLUMNS)
    .where('account_id', '=', accountId)
    .where('field_id', '=', fieldId);
  if (filter.svcIds) query = query.where('svc_id', 'in', filter.svcIds);
  if (filter.remoteIds) query = query.where('remote_id', 'in', filter.remoteIds);
  if (filter.valueIds) query = query.where('value_id', 'in', filter.valueIds);
  if (filter.value !== null) query = query.where('value', '=', filter.value);
  if (filter.afterId !== undefined) query = query.where('svc_id', '>', filter.afterId);
  return query.orderBy('svc_id');
}

export interface ValuePage {
  /** The answer's JSON array of values. */
  itemsJson: Buffer;
  hasMore: boolean;
  lastId: string | null;
}

/**
 * A keyset page in creation order (svc_ids sort by creation time) as the answer's JSON array of values, written
 * from FieldValueShape. On SQLite by SQLite itself (json_group_array) into bytes: building 1001 row objects and
 * serializing them again was most of a page's cost. On PostgreSQL by the shape's JSON writer.
 */
const listPageBy: ByDialect<
  (ex: Executor, accountId: string, fieldId: string, filter: ListFilter) => Promise<ValuePage>
> = {
  async sqlite(ex, accountId, fieldId, filter) {
    const limit = filter.limit;
    const page = listQuery(ex, accountId, fieldId, filter).limit(limit).as('p');
    const value = FieldValueShape.sqliteJson((column) => sql.ref(`p.${column}`), { fieldId });
    const row = await ex
      .selectFrom(page)
      .select([
        // In the subquery's order: SQLite feeds an aggregate the rows of an ordered, limited subquery in
        // that order (a co-routine). `json_group_array(... order by svc_id)` would guarantee it in words but
        // sorts the page again (a quarter of its cost); the tests compare every page with its values'
        // order, and the cursor is max(svc_id), whatever the order.
        sql<Buffer>`cast(json_group_array(${value}) as blob)`.as('items'),
        sql<number>`count(*)`.as('found'),
        sql<string | null>`max(p.svc_id)`.as('last'),
      ])
      .executeTakeFirstOrThrow();
    // A full page: one index probe tells whether anything follows it.
    const more =
      row.found === limit && row.last !== null
        ? (
            await listQuery(ex, accountId, fieldId, { ...filter, afterId: row.last })
              .clearSelect()
              .select('svc_id')
              .limit(1)
              .execute()
          ).length > 0
        : false;
    return { itemsJson: row.items, hasMore: more, lastId: row.last };
  },
  async postgres(ex, accountId, fieldId, filter) {
    const limit = filter.limit;
    const rows: ShownValueRow[] = await listQuery(ex, accountId, fieldId, filter)
      .limit(limit + 1)
      .execute();
    const items = rows.slice(0, limit);
    const ctx = { fieldId };
    return {
      itemsJson: Buffer.from(`[${items.map((row) => FieldValueShape.toJson(row, ctx)).join(',')}]`),
      hasMore: rows.length > limit,
      lastId: items.at(-1)?.svc_id ?? null,
    };
  },
};

export const fieldValuePagesRepository = {
  /** A page of the field's values as the answer's JSON array (listPageBy), whether more follow and the last svc_id. */
  async listPage(ex: Executor, accountId: string, fieldId: string, filter: ListFilter): Promise<ValuePage> {
    return listPageBy[ex.dialect](ex, accountId, fieldId, filter);
  },
};
