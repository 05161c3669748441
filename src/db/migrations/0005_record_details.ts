import { sql, type Kysely } from 'kysely';
import { dialectOf, keyText, type MigrationPlan } from './helpers.js';

const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;
const refs = (columns: readonly string[]) => sql.join(columns.map((c) => sql.ref(c)));

/**
 * Moves a record's details (line items, user, vendor, receipts: written at ingestion; since the review workflow
 * of 0006, coding rewrites the line items) out of accounting_records into accounting_record_details, one row per
 * record with the same key. A report of export
 * results rewrote each record's whole ~2 kB row, and SQLite's WAL carried about a 4 kB page per record; the row
 * it rewrites is now ~200 bytes (docs/performance.md). Every instance of the service must be stopped before it
 * runs: an older build reads and writes the details in accounting_records.
 *
 * All or nothing on both dialects. PostgreSQL: Kysely runs migrations in a transaction; the columns are dropped
 * (PostgreSQL only marks them; a row shrinks when it is next written, or with VACUUM FULL). SQLite: Kysely does
 * not, so this takes its own (BEGIN IMMEDIATE also keeps other processes' writers out), and accounting_records is
 * rebuilt rather than altered: ALTER TABLE DROP COLUMN rewrites each row where it lies and left the table at its
 * old size, two records to a 4 kB page, which is what made an export report costly.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await createDetails(db, { foreignKey: false });
    await copyDetails(db);
    // Added after the copy: validated in one pass instead of once per copied row.
    await db.schema
      .alterTable('accounting_record_details')
      .addForeignKeyConstraint('accounting_record_details_record_fk', ['account_id', 'id'], 'accounting_records', [
        'account_id',
        'id',
      ])
      .execute();
    for (const column of DETAILS) await db.schema.alterTable('accounting_records').dropColumn(column).execute();
    return;
  }
  // The old table is dropped while the details' foreign key names it, which SQLite would act on with foreign
  // keys on; the setting cannot change inside a transaction, so it is off around it, and every key is checked
  // before the commit.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await createDetails(trx, { foreignKey: true });
      await copyDetails(trx);
      await rebuildRecordsWithout(trx, DETAILS);
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length > 0)
        throw new Error(`0005_record_details: foreign keys broken: ${JSON.stringify(broken.rows.slice(0, 5))}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function createDetails(db: Kysely<any>, options: { foreignKey: boolean }): Promise<void> {
  const key = keyText(db);
  let table = db.schema
    .createTable('accounting_record_details')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('id', key, (c) => c.notNull())
    .addColumn('line_items_json', 'text', (c) => c.notNull())
    .addColumn('user_json', 'text')
    .addColumn('vendor_json', 'text')
    .addColumn('receipts_json', 'text')
    .addPrimaryKeyConstraint('accounting_record_details_pk', ['account_id', 'id']);
  if (options.foreignKey) {
    table = table.addForeignKeyConstraint(
      'accounting_record_details_record_fk',
      ['account_id', 'id'],
      'accounting_records',
      ['account_id', 'id'],
    );
  }
  if (dialectOf(db) === 'postgres') {
    // A details row over PostgreSQL's 2 kB threshold would be compressed in place and decompressed on every page
    // of a poll: kept plain, at the cost of a larger table (docs/performance.md has the figures).
    table = table.modifyEnd(sql`with (toast_tuple_target = 8160)`);
  }
  await table.execute();
}

async function copyDetails(db: Kysely<any>): Promise<void> {
  await sql`
    insert into accounting_record_details (account_id, id, ${refs(DETAILS)})
    select account_id, id, ${refs(DETAILS)} from accounting_records
    order by account_id, id`.execute(db);
}

/**
 * SQLite's way to drop columns and compact the table (sqlite.org/lang_altertable.html, "other kinds of table
 * schema changes"): a new table from the old one's definition without `columns`, the rows copied, the old table
 * dropped, the new one renamed, and the old table's indexes made again from their stored definitions.
 */
async function rebuildRecordsWithout(trx: Kysely<any>, columns: readonly string[]): Promise<void> {
  const master = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_master where tbl_name = 'accounting_records' and sql is not null`.execute(trx);
  const indexes = master.rows.filter((r) => r.type === 'index').map((r) => r.sql);
  const info = await sql<{ name: string; type: string; notnull: number }>`
    select name, type, "notnull" from pragma_table_info('accounting_records') order by cid`.execute(trx);
  const kept = info.rows.filter((c) => !columns.includes(c.name));
  if (kept.length !== info.rows.length - columns.length)
    throw new Error('0005_record_details: accounting_records lacks a detail column');
  const definitions = kept.map((c) => sql`${sql.ref(c.name)} ${sql.raw(c.type)}${c.notnull ? sql` not null` : sql``}`);
  await sql`
    create table accounting_records_0005 (
      ${sql.join(definitions)},
      constraint accounting_records_pk primary key (account_id, id),
      foreign key (account_id) references accounts (account_id)
    )`.execute(trx);
  const names = kept.map((c) => c.name);
  await sql`insert into accounting_records_0005 (${refs(names)}) select ${refs(names)} from accounting_records order by rowid`.execute(
    trx,
  );
  await sql`drop table accounting_records`.execute(trx);
  await sql`alter table accounting_records_0005 rename to accounting_records`.execute(trx);
  for (const index of indexes) await sql.raw(index).execute(trx);
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records'],
  note: "Moves each record's line items, user, vendor and receipts into accounting_record_details and drops them from accounting_records (a table rebuild on SQLite): the release before it reads those columns.",
};
