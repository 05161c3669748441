import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, Executor } from '../../db/database.js';
import { hints } from '../../speed/hints.js';
import { preparedQuery } from '../../speed/prepared.js';
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

// Its columns named, not `*` (a named statement on PostgreSQL keeps its result's columns: src/speed/postgres-named.ts).
const findQuery = preparedQuery<{ accountId: string; fieldId: string; svcId: string }>()((ex, param) =>
  ex
    .selectFrom('field_values')
    .select(COLUMNS)
    .where('account_id', '=', param('accountId'))
    .where('field_id', '=', param('fieldId'))
    .where('svc_id', '=', param('svcId')),
);

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
