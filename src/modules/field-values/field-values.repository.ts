import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { ByDialect, Database, Executor } from '../../db/database.js';
import { hints } from '../../speed/hints.js';
import { preparedQuery } from '../../speed/prepared.js';
import { FieldValueShape, SHOWN_VALUE_COLUMNS, type ShownValueRow } from './field-values.schemas.js';
import type { FieldValuesTable } from './field-values.tables.js';

/** The columns that address a value in update and delete. */
export type AddressRow = Pick<FieldValuesTable, 'svc_id' | 'remote_id' | 'value_id'>;

export interface AddressLists {
  svcIds: string[];
  remoteIds: string[];
  valueIds: string[];
}

export interface ValueChange {
  svc_id: string;
  value: string | null;
  is_disabled: number | null;
}

/** 9 columns × 1000 rows stays far below both dialects' bound-parameter limits (32766 / 65535). */
const INSERT_CHUNK = 1000;
const ID_CHUNK = 500;

const COLUMNS = [
  'account_id',
  'field_id',
  'svc_id',
  'value',
  'remote_id',
  'value_id',
  'is_disabled',
  'created_at',
  'updated_at',
] as const;

type Eb = ExpressionBuilder<Database, 'field_values'>;

/**
 * "A value of this field addressed by any of these", as an OR of arms that each carry the account and field:
 * then each arm is served by its own index (SQLite's multi-index OR, PostgreSQL's BitmapOr). With the account
 * and field outside the OR, SQLite scans the whole field through their common index prefix instead.
 */
function anyAddress(eb: Eb, accountId: string, fieldId: string, lists: AddressLists): Expression<SqlBool> {
  const arm = (column: 'svc_id' | 'remote_id' | 'value_id', ids: string[]) =>
    eb.and([eb('account_id', '=', accountId), eb('field_id', '=', fieldId), eb(column, 'in', ids)]);
  const arms: Expression<SqlBool>[] = [];
  if (lists.svcIds.length > 0) arms.push(arm('svc_id', lists.svcIds));
  if (lists.remoteIds.length > 0) arms.push(arm('remote_id', lists.remoteIds));
  if (lists.valueIds.length > 0) arms.push(arm('value_id', lists.valueIds));
  return arms.length > 0 ? eb.or(arms) : sql<SqlBool>`1 = 0`;
}

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

const findQuery = preparedQuery<{ accountId: string; fieldId: string; svcId: string }>()((ex, param) =>
  ex
    .selectFrom('field_values')
    .selectAll()
    .where('account_id', '=', param('accountId'))
    .where('field_id', '=', param('fieldId'))
    .where('svc_id', '=', param('svcId')),
);

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

export const fieldValuesRepository = {
  /**
   * Inserts every row, skipping (not failing on) rows whose remote_id or value_id a concurrent transaction
   * has just taken, so that the caller can name the clashing items; returns the svc_ids inserted.
   */
  async insertMany(ex: Executor, rows: FieldValuesTable[]): Promise<Set<string>> {
    const inserted = new Set<string>();
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      const result = await ex
        .insertInto('field_values')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.doNothing())
        .returning('svc_id')
        .execute();
      for (const row of result) inserted.add(row.svc_id);
    }
    return inserted;
  },

  async find(ex: Executor, accountId: string, fieldId: string, svcId: string): Promise<FieldValuesTable | undefined> {
    return (await findQuery(ex, { accountId, fieldId, svcId })).rows[0];
  },

  /** The field's values that any of these addresses name. */
  async findAddressed(ex: Executor, accountId: string, fieldId: string, lists: AddressLists): Promise<AddressRow[]> {
    return ex
      .selectFrom('field_values')
      .select(['svc_id', 'remote_id', 'value_id'])
      .where((eb) => anyAddress(eb, accountId, fieldId, lists))
      .execute();
  },

  /** A page of the field's values as the answer's JSON array (listPageBy), whether more follow and the last svc_id. */
  async listPage(ex: Executor, accountId: string, fieldId: string, filter: ListFilter): Promise<ValuePage> {
    return listPageBy[ex.dialect](ex, accountId, fieldId, filter);
  },

  /** The values of the fields `fieldIds` whose remote_id is among `remoteIds`. */
  async findByRemoteIds(
    ex: Executor,
    accountId: string,
    fieldIds: readonly string[],
    remoteIds: readonly string[],
  ): Promise<FieldValuesTable[]> {
    if (fieldIds.length === 0 || remoteIds.length === 0) return [];
    const out: FieldValuesTable[] = [];
    for (let i = 0; i < remoteIds.length; i += ID_CHUNK) {
      out.push(
        ...(await ex
          .selectFrom('field_values')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('field_id', 'in', fieldIds)
          .where('remote_id', 'in', remoteIds.slice(i, i + ID_CHUNK))
          .execute()),
      );
    }
    return out;
  },

  /**
   * The field of each of the account's values among `svcIds`, in any field (an id given with the wrong field:
   * the account's range of the key is read, which only refusals need).
   */
  async fieldsOfValues(
    ex: Executor,
    accountId: string,
    svcIds: readonly string[],
  ): Promise<{ svc_id: string; field_id: string }[]> {
    const out: { svc_id: string; field_id: string }[] = [];
    for (let i = 0; i < svcIds.length; i += ID_CHUNK) {
      out.push(
        ...(await ex
          .selectFrom('field_values')
          .select(['svc_id', 'field_id'])
          .where('account_id', '=', accountId)
          .where('svc_id', 'in', svcIds.slice(i, i + ID_CHUNK))
          .execute()),
      );
    }
    return out;
  },

  /** The account's values among `svcIds` of the fields `fieldIds`, whatever their state. */
  async findValues(
    ex: Executor,
    accountId: string,
    fieldIds: readonly string[],
    svcIds: readonly string[],
  ): Promise<FieldValuesTable[]> {
    const out: FieldValuesTable[] = [];
    for (let i = 0; i < svcIds.length; i += ID_CHUNK) {
      out.push(
        ...(await ex
          .selectFrom('field_values')
          .selectAll()
          .where('account_id', '=', accountId)
          // field_id too: the key of field_values is (account_id, field_id, svc_id)
          .where('field_id', 'in', fieldIds)
          .where('svc_id', 'in', svcIds.slice(i, i + ID_CHUNK))
          .execute()),
      );
    }
    return out;
  },

  /**
   * Applies every change in one statement. Each SET expression sees the current row (in PostgreSQL the row
   * as re-read after waiting for a concurrent writer), so absent members never overwrite another
   * transaction's change; updated_at moves only for rows that really change. Returns the rows it touched.
   */
  async updateMany(
    ex: Executor,
    accountId: string,
    fieldId: string,
    changes: ValueChange[],
    now: number,
  ): Promise<FieldValuesTable[]> {
    // Casts type the VALUES columns on PostgreSQL, where bare parameters would all be text.
    const rows = changes.map(
      (c) => sql`(cast(${c.svc_id} as text), cast(${c.value} as text), cast(${c.is_disabled} as integer))`,
    );
    const value = sql`coalesce(v.value, field_values.value)`;
    const disabled = sql`coalesce(v.is_disabled, field_values.is_disabled)`;
    // `now` was read before this statement waited for the row lock (PostgreSQL): a concurrent update may
    // have committed a later time meanwhile. updated_at never moves back, so the last change has the latest.
    const later = sql`case when cast(${now} as bigint) > field_values.updated_at then cast(${now} as bigint) else field_values.updated_at + 1 end`;
    const result = await sql<FieldValuesTable>`
      with v (svc_id, value, is_disabled) as (values ${sql.join(rows)})
      update field_values
      set value = ${value},
          is_disabled = ${disabled},
          updated_at = case
            when ${value} <> field_values.value or ${disabled} <> field_values.is_disabled then ${later}
            else field_values.updated_at
          end
      from v
      where field_values.account_id = ${accountId}
        and field_values.field_id = ${fieldId}
        and field_values.svc_id = v.svc_id
        ${hints.probeEachKey(
          'field_values.svc_id',
          changes.map((c) => c.svc_id),
        )}
      returning ${sql.join(COLUMNS.map((c) => sql.ref(`field_values.${c}`)))}`.execute(ex);
    return result.rows;
  },

  /** Deletes every value that any of these addresses name, in one statement; returns what it deleted. */
  async deleteAddressed(ex: Executor, accountId: string, fieldId: string, lists: AddressLists): Promise<AddressRow[]> {
    return ex
      .deleteFrom('field_values')
      .where((eb) => anyAddress(eb, accountId, fieldId, lists))
      .returning(['svc_id', 'remote_id', 'value_id'])
      .execute();
  },
};
