import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { rowsOf, tablesOf } from '../../src/modules/backup/backup.copy.js';

/** `work` on the database at `url`, opened for it alone (one connection) and closed after. */
export async function onDatabase<T>(url: string, work: (db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(loadConfig({ DATABASE_URL: url }).database, { poolSize: 1 });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * The migrations a database ran and every row of its tables (receipts' bytes and the migrator's bookkeeping aside),
 * each row as JSON of its columns in name order, each table's rows sorted: the same whatever the dialect's collation.
 */
export const contents = (url: string) =>
  onDatabase(url, async (db) => {
    const rows: Record<string, string[]> = {};
    for (const table of await tablesOf(db.direct)) {
      if (['kysely_migration', 'kysely_migration_lock', 'receipt_contents'].includes(table.name)) continue;
      const texts: string[] = [];
      for await (const page of rowsOf(db.direct, table))
        for (const row of page) texts.push(JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
      rows[table.name] = texts.sort();
    }
    const migrations = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.direct);
    return { migrations: migrations.rows.map((r) => r.name), rows };
  });

/**
 * Every table, column, index, trigger and view of the database at `url` as its dialect describes them (SQLite: its
 * schema table; PostgreSQL: the catalog's columns and index definitions, in svc's schema), sorted.
 */
export const schemaOf = (url: string) =>
  onDatabase(url, async (db) => {
    if (db.dialect === 'sqlite') {
      const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
        select type, name, sql from sqlite_master order by type, name`.execute(db.direct);
      return rows;
    }
    const columns = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
      select table_name, column_name, data_type, is_nullable from information_schema.columns
      where table_schema = current_schema() order by table_name, column_name`.execute(db.direct);
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes where schemaname = current_schema() order by indexname`.execute(
      db.direct,
    );
    return [...columns.rows, ...indexes.rows];
  });
