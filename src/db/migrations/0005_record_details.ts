import { sql, type Kysely } from 'kysely';
import { keyText } from '../schema.js';

const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;

/**
 * Moves a record's details (line items, user, vendor, receipts: written once at ingestion, never changed) out of
 * accounting_records into accounting_record_details, one row per record with the same key. A report of export
 * results rewrote each record's whole ~2 kB row and SQLite's WAL carried about a 4 kB page per record; the row
 * it rewrites is now ~200 bytes (docs/performance.md). Runs in the migration's transaction: every record keeps
 * its details or nothing changes. On SQLite each dropped column rewrites the table once (about 15 s per
 * column at 1,000,000 records); on PostgreSQL dropping a column only marks it, and the old row versions shrink
 * as records are next written (or with VACUUM FULL). Every instance of the service must be stopped before it
 * runs: an older build reads and writes the details in accounting_records.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('accounting_record_details')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('id', key, (c) => c.notNull())
    .addColumn('line_items_json', 'text', (c) => c.notNull())
    .addColumn('user_json', 'text')
    .addColumn('vendor_json', 'text')
    .addColumn('receipts_json', 'text')
    .addPrimaryKeyConstraint('accounting_record_details_pk', ['account_id', 'id'])
    .addForeignKeyConstraint('accounting_record_details_record_fk', ['account_id', 'id'], 'accounting_records', ['account_id', 'id'])
    .execute();
  await sql`
    insert into accounting_record_details (account_id, id, ${sql.join(DETAILS.map((c) => sql.ref(c)))})
    select account_id, id, ${sql.join(DETAILS.map((c) => sql.ref(c)))} from accounting_records
    order by account_id, id`.execute(db);
  for (const column of DETAILS) await db.schema.alterTable('accounting_records').dropColumn(column).execute();
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}
