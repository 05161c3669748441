import { sql, type Kysely } from 'kysely';
import { dialectOf, keyText, type MigrationPlan } from './helpers.js';

/**
 * The review workflow (docs/accounting.md, "Review"):
 * - accounting_record_events: every change of a record (ingested, coded, split, merged, moved, export reported)
 *   with the version it produced, its time, actor and what changed; written in the change's transaction.
 * - account_required_fields: the fields every economic line must be coded with before READY_FOR_EXPORT.
 * - accounting_records gains what the review queue filters and sorts on: amount_sort (the amount in
 *   ten-thousandths of its currency's major unit, comparable across currencies), vendor_name and user_email (from
 *   the details, for text search), uncoded_lines (economic lines without any coding). Existing rows are filled in.
 * - a text index over field values (value and remote_id) for the coding pickers' contains-search: SQLite's FTS5
 *   with the trigram tokenizer, kept by triggers; PostgreSQL's pg_trgm (a trusted extension since PostgreSQL 13:
 *   the database owner may create it).
 *
 * All or nothing on both dialects (SQLite: its own BEGIN IMMEDIATE transaction, as Kysely runs SQLite migrations
 * without one). Every instance must be stopped before it runs: an older build writes records without the new
 * columns' values.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await migrate(db);
    return;
  }
  await db.transaction().execute(migrate);
}

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  const postgres = dialectOf(db) === 'postgres';

  await db.schema
    .createTable('accounting_record_events')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('record_id', key, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('event_id', key, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('changes_json', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('accounting_record_events_pk', ['account_id', 'record_id', 'version'])
    .addForeignKeyConstraint('accounting_record_events_record_fk', ['account_id', 'record_id'], 'accounting_records', [
      'account_id',
      'id',
    ])
    .execute();

  await db.schema
    .createTable('account_required_fields')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('field_id', key, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_required_fields_pk', ['account_id', 'field_id'])
    .addForeignKeyConstraint(
      'account_required_fields_field_fk',
      ['account_id', 'field_id'],
      'fields',
      ['account_id', 'svc_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  for (const [column, type] of [
    ['amount_sort', 'bigint'],
    ['uncoded_lines', 'integer'],
  ] as const) {
    await db.schema
      .alterTable('accounting_records')
      .addColumn(column, type, (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.alterTable('accounting_records').addColumn('vendor_name', 'text').execute();
  await db.schema.alterTable('accounting_records').addColumn('user_email', 'text').execute();
  await fillReviewColumns(db);
  await db.schema
    .createIndex('accounting_records_posted_idx')
    .on('accounting_records')
    .columns(['account_id', 'posted_at', 'id'])
    .execute();
  await db.schema
    .createIndex('accounting_records_amount_idx')
    .on('accounting_records')
    .columns(['account_id', 'amount_sort', 'id'])
    .execute();

  // The pickers' start-of-value search, case-insensitive, in value order.
  await sql`create index field_values_lower_value_idx on field_values (account_id, field_id, lower(value))`.execute(db);
  if (postgres) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index field_values_search_idx on field_values
      using gin ((value || ' ' || coalesce(remote_id, '')) gin_trgm_ops)`.execute(db);
    return;
  }
  // External content: the index holds the trigrams, field_values the text; triggers keep the two in step in
  // the writing transaction. Keyed by field_values' rowid (SQLite's VACUUM keeps it: tested).
  await sql`create virtual table field_values_search using fts5(
      value, remote_id, content='field_values', content_rowid='rowid', tokenize='trigram')`.execute(db);
  await sql`create trigger field_values_search_insert after insert on field_values begin
      insert into field_values_search (rowid, value, remote_id) values (new.rowid, new.value, new.remote_id);
    end`.execute(db);
  await sql`create trigger field_values_search_delete after delete on field_values begin
      insert into field_values_search (field_values_search, rowid, value, remote_id)
        values ('delete', old.rowid, old.value, old.remote_id);
    end`.execute(db);
  await sql`create trigger field_values_search_update after update of value, remote_id on field_values begin
      insert into field_values_search (field_values_search, rowid, value, remote_id)
        values ('delete', old.rowid, old.value, old.remote_id);
      insert into field_values_search (rowid, value, remote_id) values (new.rowid, new.value, new.remote_id);
    end`.execute(db);
  await sql`insert into field_values_search (field_values_search) values ('rebuild')`.execute(db);
}

// The minor-unit exponents as this migration was written (ISO 4217 in 2026): two decimals unless listed.
const EXPONENTS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((c) => [c, 0]),
  ),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3])),
  ...Object.fromEntries('CLF UYW'.split(' ').map((c) => [c, 4])),
};
// The side that carries each type's economic impact, as the ledger had it when this migration was written.
const CREDIT_ECONOMIC = new Set(
  (
    'CARD_EXPENSE_REFUND CARD_EXPENSE_REPAYMENT CARD_PAYMENT REWARD_REDEMPTION REIMBURSEMENT_EXPENSE_REPAYMENT ' +
    'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN INVOICE ' +
    'BILL_EXPENSE_PAYMENT BILL_EXPENSE_CARD_PAYMENT BILL_MONEY_MOVEMENT_PAYIN'
  ).split(' '),
);
const BATCH = 1000;

interface Row {
  account_id: string;
  id: string;
  type: string;
  currency: string;
  amount_minor: number | string;
  line_items_json: string;
  user_json: string | null;
  vendor_json: string | null;
}

const text = (json: string | null, member: string): string | null => {
  if (json === null) return null;
  const parsed: Record<string, unknown> | null = JSON.parse(json);
  const value = parsed?.[member];
  return typeof value === 'string' ? value : null;
};

/** Fills the new columns of the records written before this migration, a batch at a time. */
async function fillReviewColumns(db: Kysely<any>): Promise<void> {
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    let query = db
      .selectFrom('accounting_records as r')
      .innerJoin('accounting_record_details as d', (j) =>
        j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
      )
      .select([
        'r.account_id',
        'r.id',
        'r.type',
        'r.currency',
        'r.amount_minor',
        'd.line_items_json',
        'd.user_json',
        'd.vendor_json',
      ])
      .orderBy('r.account_id')
      .orderBy('r.id')
      .limit(BATCH);
    if (after) {
      const { account_id, id } = after;
      query = query.where((eb) =>
        eb.or([
          eb('r.account_id', '>', account_id),
          eb.and([eb('r.account_id', '=', account_id), eb('r.id', '>', id)]),
        ]),
      );
    }
    const rows: Row[] = await query.execute();
    if (rows.length === 0) return;
    const values = rows.map((row) => {
      const side = CREDIT_ECONOMIC.has(row.type) ? 'CREDIT' : 'DEBIT';
      const lines: { type: string; accounting_field_values: unknown[] }[] = JSON.parse(row.line_items_json);
      const uncoded = lines.filter((l) => l.type === side && l.accounting_field_values.length === 0).length;
      const amountSort = Number(row.amount_minor) * 10 ** (4 - (EXPONENTS[row.currency] ?? 2));
      return sql`(${row.account_id}, ${row.id}, cast(${amountSort} as bigint), cast(${uncoded} as integer), ${text(row.vendor_json, 'name')}, ${text(row.user_json, 'email')})`;
    });
    await sql`
      with v(account_id, id, amount_sort, uncoded_lines, vendor_name, user_email) as (values ${sql.join(values)})
      update accounting_records
      set amount_sort = v.amount_sort, uncoded_lines = v.uncoded_lines, vendor_name = v.vendor_name,
          user_email = v.user_email
      from v
      where accounting_records.account_id = v.account_id and accounting_records.id = v.id`.execute(db);
    after = rows[rows.length - 1]!;
  }
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records', 'field_values'],
  note: 'Adds the review columns to every record and backfills them, creates the history and required-coding tables, and indexes records and field values (a full-text table on SQLite, a trigram index on PostgreSQL): time grows with records and values.',
};
