import type { Kysely } from 'kysely';
import { keyText, type MigrationPlan } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('accounting_records')
    .addColumn('account_id', key, (c) => c.notNull().references('accounts.account_id'))
    .addColumn('id', key, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text')
    .addColumn('review_status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('original_currency', 'text')
    .addColumn('original_amount_minor', 'bigint')
    .addColumn('posted_at', 'bigint', (c) => c.notNull())
    .addColumn('erp_posting_date', 'bigint', (c) => c.notNull())
    .addColumn('due_at', 'bigint')
    .addColumn('invoice_number', 'text')
    .addColumn('memo', 'text')
    .addColumn('line_items_json', 'text', (c) => c.notNull())
    .addColumn('user_json', 'text')
    .addColumn('vendor_json', 'text')
    .addColumn('receipts_json', 'text')
    .addColumn('last_export_json', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('accounting_records_pk', ['account_id', 'id'])
    .execute();

  // The per-account clock makes updated_at distinct within an account: unique, so polling by
  // (updated_at, id) is a total order, and the unique index serves the unfiltered poll.
  await db.schema
    .createIndex('accounting_records_updated_idx')
    .on('accounting_records')
    .columns(['account_id', 'updated_at', 'id'])
    .unique()
    .execute();
  // source_type last: `review_status` alone means card and reimbursement records, and with the column in the
  // index that filter and its count need no table reads.
  await db.schema
    .createIndex('accounting_records_review_status_idx')
    .on('accounting_records')
    .columns(['account_id', 'review_status', 'updated_at', 'id', 'source_type'])
    .execute();
  await db.schema
    .createIndex('accounting_records_source_type_idx')
    .on('accounting_records')
    .columns(['account_id', 'source_type', 'updated_at', 'id'])
    .execute();

  // Records per (source_type, review_status), kept in the record-writing transactions (which hold the
  // account's clock lock): total_count of a filter without ids or time bounds is a sum of a few rows.
  await db.schema
    .createTable('account_record_counts')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('review_status', 'text', (c) => c.notNull())
    .addColumn('records', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_record_counts_pk', ['account_id', 'source_type', 'review_status'])
    .execute();

  await db.schema
    .createTable('account_record_clocks')
    .addColumn('account_id', key, (c) => c.primaryKey())
    .addColumn('last_updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the accounting records' tables; nothing existing is touched.",
};
