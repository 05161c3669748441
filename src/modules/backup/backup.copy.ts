import fs from 'node:fs';
import { sql, type RawBuilder } from 'kysely';
import type { DatabaseTarget } from '../../config.js';
import type { Db, Executor } from '../../db/database.js';
import { MIGRATIONS, migrateToLatest, runMigrations } from '../../db/migrate.js';
import { openDatabase } from '../../db/open.js';
import { receiptStore } from '../receipts/receipts.service.js';
import { BackupError, countDifferences } from './backup.manifest.js';
import { MIGRATOR_TABLES, targetMustHoldNoData } from './backup.copy-target.js';
import { carryReceipts, type StoredReceipt } from './backup.receipts.js';
import { madeByOpening } from './backup.sqlite.js';

/** Rows read and written per statement: well under both dialects' limits of bound parameters. */
const PARAMETERS_PER_STATEMENT = 30_000;
const READ_PAGE = 2_000;
/** Receipts' bytes: carried from store to store (files on SQLite, this table on PostgreSQL), not copied as rows. */
const RECEIPT_BYTES = 'receipt_contents';

export interface Table {
  name: string;
  columns: string[];
  key: string[];
  /** Tables this one's foreign keys point at. */
  references: string[];
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function tablesOf(ex: Executor): Promise<Table[]> {
  if (ex.dialect === 'sqlite') {
    const { rows } = await sql<{ name: string; sql: string | null }>`
      select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(ex);
    // Full-text indexes (virtual tables and their shadow tables) are derived: the target's triggers fill its own.
    const virtual = rows.filter((r) => /^create virtual table/i.test(r.sql ?? '')).map((r) => r.name);
    const derived = (name: string) => virtual.some((v) => name === v || name.startsWith(`${v}_`));
    const tables: Table[] = [];
    for (const { name } of rows.filter((r) => !derived(r.name))) {
      const info = await sql<{ name: string; pk: number }>`select name, pk from pragma_table_info(${name})`.execute(ex);
      const fks = await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(ex);
      tables.push({
        name,
        columns: info.rows.map((c) => c.name),
        key: info.rows
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        references: fks.rows.map((f) => f.table),
      });
    }
    return tables;
  }
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(ex);
  const tables: Table[] = [];
  for (const { name } of rows) {
    const columns = await sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ${name} order by ordinal_position`.execute(ex);
    const key = await sql<{ name: string }>`
      select a.attname as name from pg_index i
      join lateral unnest(i.indkey) with ordinality as k(attnum, n) on true
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where i.indrelid = ${name}::regclass and i.indisprimary order by k.n`.execute(ex);
    const fks = await sql<{ table: string }>`
      select confrelid::regclass::text as table from pg_constraint
      where conrelid = ${name}::regclass and contype = 'f'`.execute(ex);
    tables.push({
      name,
      columns: columns.rows.map((c) => c.name),
      key: key.rows.map((c) => c.name),
      references: fks.rows.map((f) => f.table.replace(/^"(.*)"$/, '$1')),
    });
  }
  return tables;
}

/** Tables in an order where every table comes after those its foreign keys point at. */
export function referencedFirst(tables: Table[]): Table[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const ordered: Table[] = [];
  const visit = (table: Table, path: Set<string>) => {
    if (done.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const name of table.references) {
      const referenced = byName.get(name);
      if (referenced && referenced !== table) visit(referenced, path);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());
  return ordered;
}

/** Every row of `table`, page by page in primary-key order (keyset), inside the caller's snapshot. */
/**
 * Every row of `table` (of one account only, given `accountId`), page by page in primary-key order (keyset), inside
 * the caller's snapshot.
 */
export async function* rowsOf(
  ex: Executor,
  table: Table,
  accountId?: string,
): AsyncGenerator<Record<string, unknown>[]> {
  const select = sql.raw(`select ${table.columns.map(quote).join(', ')} from ${quote(table.name)}`);
  const ofAccount = accountId === undefined ? sql`1 = 1` : sql`account_id = ${accountId}`;
  if (table.key.length === 0) {
    yield (await sql<Record<string, unknown>>`${select} where ${ofAccount}`.execute(ex)).rows;
    return;
  }
  const keyList = sql.raw(table.key.map(quote).join(', '));
  let after: unknown[] | null = null;
  for (;;) {
    const where: RawBuilder<unknown> =
      after === null ? ofAccount : sql`${ofAccount} and (${keyList}) > (${sql.join(after)})`;
    const page: Record<string, unknown>[] = (
      await sql<Record<string, unknown>>`${select} where ${where} order by ${keyList} limit ${READ_PAGE}`.execute(ex)
    ).rows;
    if (page.length === 0) return;
    yield page;
    const last = page.at(-1)!;
    after = table.key.map((k) => last[k]);
    if (page.length < READ_PAGE) return;
  }
}

async function insertRows(ex: Executor, table: Table, rows: Record<string, unknown>[]): Promise<void> {
  const per = Math.max(1, Math.floor(PARAMETERS_PER_STATEMENT / table.columns.length));
  const columns = sql.raw(table.columns.map(quote).join(', '));
  for (let i = 0; i < rows.length; i += per) {
    const values = rows.slice(i, i + per).map((row) => sql`(${sql.join(table.columns.map((c) => row[c] ?? null))})`);
    await sql`insert into ${sql.raw(quote(table.name))} (${columns}) values ${sql.join(values)}`.execute(ex);
  }
}

export interface CopyReport {
  from: string;
  to: string;
  schema_version: string;
  tables: Record<string, number>;
  /** Receipts whose bytes were carried (and checked against their SHA-256). */
  receipts: number;
  /** Migrations the target ran that the source had not: after the copy, and any the source lacked below its last. */
  migrations_run: string[];
}

/**
 * Copies a whole svc database into an empty one of either dialect (SQLite → PostgreSQL when a team outgrows the
 * embedded default, and back), or into one a failed copy left (targetMustHoldNoData): the target is migrated to the
 * source's schema, every row is copied from one snapshot of the source in one transaction of the target (all or
 * nothing), the rows per table are compared, and then the target runs the migrations this svc has that the source
 * had not. The schema holds text and integers only, so a value crosses dialects as it is.
 */
export async function copyDatabase(
  from: DatabaseTarget & { receiptsDir: string | null },
  to: DatabaseTarget & { receiptsDir: string | null },
  names: { from: string; to: string },
): Promise<CopyReport> {
  // The source must be there (a mistyped path would otherwise be made, empty); the target may be new.
  const source = openDatabase(from, { poolSize: 1, existing: true });
  const made = to.dialect === 'sqlite' ? madeByOpening(to.path, to.receiptsDir) : [];
  const target = openDatabase(to, { poolSize: 1 });
  let copied = false;
  try {
    const report = await copyBetween(source, target, names, { from: from.receiptsDir, to: to.receiptsDir });
    copied = true;
    return report;
  } finally {
    await source.close();
    await target.close();
    // A new file the copy made goes with its failure: trying again finds no half-made database in the way.
    if (!copied) for (const file of made) fs.rmSync(file, { recursive: true, force: true });
  }
}

async function copyBetween(
  source: Db,
  target: Db,
  names: { from: string; to: string },
  receiptsDirs: { from: string | null; to: string | null },
): Promise<CopyReport> {
  const present = (await tablesOf(target.direct)).map((t) => t.name);
  return source.read(async (ex) => {
    const tables = await tablesOf(ex);
    if (!tables.some((t) => t.name === 'kysely_migration'))
      throw new BackupError(`${names.from} is not a svc database`);
    const migrations = (
      await sql<{ name: string }>`select name from kysely_migration order by name`.execute(ex)
    ).rows.map((r) => r.name);
    const unknown = migrations.filter((name) => !(name in MIGRATIONS));
    if (unknown.length > 0)
      throw new BackupError(`${names.from} was written by a newer svc (this svc does not know ${unknown.join(', ')})`);
    const schema = migrations.at(-1);
    if (schema === undefined) throw new BackupError(`${names.from} has no migration applied`);
    await targetMustHoldNoData(target.direct, present, { tables: tables.map((t) => t.name), migrations }, names.to);
    const migrated = await runMigrations(target, (migrator) => migrator.migrateTo(schema));
    // Run on the empty target below the source's last, and not among the source's: one a database made between two
    // merges lacked (the repository's 1bf87fd had 0027 and not 0025). Reported with those run after the copy.
    const runBefore = (migrated.results ?? [])
      .filter((r) => r.status === 'Success' && !migrations.includes(r.migrationName))
      .map((r) => r.migrationName);
    const into = new Set((await tablesOf(target.direct)).map((t) => t.name));
    const missing = tables.filter((t) => !into.has(t.name)).map((t) => t.name);
    if (missing.length > 0)
      throw new BackupError(
        `${names.to} has no table ${missing.join(', ')} at schema ${schema}: the source's schema is not svc's`,
      );
    const copied: Record<string, number> = {};
    let receipts = 0;
    const expected: Record<string, number> = {};
    await target.write(async (into) => {
      for (const table of referencedFirst(tables)) {
        if (MIGRATOR_TABLES.has(table.name) || table.name === RECEIPT_BYTES) continue;
        const count = await sql<{
          n: number | string;
        }>`select count(*) as n from ${sql.raw(quote(table.name))}`.execute(ex);
        expected[table.name] = Number(count.rows[0]!.n);
        for await (const page of rowsOf(ex, table)) await insertRows(into, table, page);
        const written = await sql<{
          n: number | string;
        }>`select count(*) as n from ${sql.raw(quote(table.name))}`.execute(into);
        copied[table.name] = Number(written.rows[0]!.n);
      }
      if (tables.some((t) => t.name === 'receipts')) {
        const stored =
          await sql<StoredReceipt>`select account_id, sha256 from receipts order by account_id, sha256`.execute(ex);
        receipts = await carryReceipts(
          stored.rows,
          { store: receiptStore(receiptsDirs.from), ex },
          { store: receiptStore(receiptsDirs.to), ex: into },
        );
      }
      const differences = countDifferences(expected, copied);
      if (differences.length > 0)
        throw new BackupError(`the copy does not hold what the source does: ${differences.join('; ')}`);
    });
    return {
      from: names.from,
      to: names.to,
      schema_version: schema,
      tables: copied,
      receipts,
      migrations_run: [...runBefore, ...(await migrateToLatest(target))],
    };
  });
}
