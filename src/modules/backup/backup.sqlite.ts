import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { BackupError, sha256Of } from './backup.manifest.js';

/**
 * How long the backup's connection waits for a lock another process holds (a checkpoint, say): a minute, so that a
 * backup started while the file is busy waits rather than fails (and the test that holds it there never races it).
 */
const LOCK_WAIT_MS = 60_000;

/** Rows per table and the migrations run, read from an open SQLite database. */
function contents(db: SqliteDatabase.Database): { tables: Record<string, number>; migrations: string[] } {
  const names = db
    .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`)
    .pluck()
    .all()
    .map(String);
  const tables: Record<string, number> = {};
  for (const name of names)
    tables[name] = Number(
      db
        .prepare(`select count(*) from "${name.replaceAll('"', '""')}"`)
        .pluck()
        .get(),
    );
  const migrations = names.includes('kysely_migration')
    ? db.prepare('select name from kysely_migration order by name').pluck().all().map(String)
    : [];
  return { tables, migrations };
}

/**
 * Copies the live database at `source` to `target` through SQLite's online backup API, in one step: the copy is
 * one read transaction's snapshot (in WAL mode the service's writers go on meanwhile), never a file copy of a live
 * database. The copy is then checked and counted. The check is SQLite's `quick_check` (every page, record and
 * structure of the file; not whether each index holds exactly its table's rows, which `integrity_check` also proves
 * at 6× the time): the copy is page for page the source's snapshot, so what it could break is the file's structure.
 */
export async function backupSqlite(
  source: string,
  target: string,
): Promise<{ tables: Record<string, number>; migrations: string[]; sha256: string }> {
  if (!fs.existsSync(source)) throw new BackupError(`the database file ${source} does not exist`);
  const live = new SqliteDatabase(source, { readonly: true, fileMustExist: true, timeout: LOCK_WAIT_MS });
  try {
    await live.backup(target, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  const copy = new SqliteDatabase(target, { fileMustExist: true });
  let hashing: Promise<string> | undefined;
  try {
    copy.pragma('journal_mode = DELETE');
    // The file is final now (the check and the counts only read): hashed in a worker while they run.
    hashing = sha256Of(target);
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copy failed SQLite's quick check: ${String(check)}`);
    const counted = contents(copy);
    return { ...counted, sha256: await hashing };
  } finally {
    copy.close();
    // A refused copy's hash is not wanted, nor its failure (the copy is deleted by the caller).
    hashing?.catch(() => undefined);
  }
}

/** Rows per table of a SQLite database file (a backup's data file, or a restored database). */
export function sqliteContents(file: string): { tables: Record<string, number>; migrations: string[] } {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return contents(db);
  } finally {
    db.close();
  }
}

/** The tables an existing SQLite file holds (none when there is no file): a restore writes only into none. */
export function sqliteTablesAt(file: string): string[] {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return [];
  return Object.keys(sqliteContents(file).tables);
}

/**
 * Puts the backup's data file in place at `target` (which holds no table): copied beside it under a temporary
 * name, flushed, then renamed, so that a restore cut short leaves no database that looks restored.
 */
export function restoreSqlite(dataFile: string, target: string): void {
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  const temporary = `${target}.restoring-${process.pid}`;
  try {
    fs.copyFileSync(dataFile, temporary);
    const fd = fs.openSync(temporary, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    for (const leftover of [`${target}-wal`, `${target}-shm`]) fs.rmSync(leftover, { force: true });
    fs.renameSync(temporary, target);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** The receipts a SQLite database file names (none before receipts existed). */
export function sqliteReceipts(file: string): { account_id: string; sha256: string }[] {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const present = db.prepare(`select 1 from sqlite_master where type = 'table' and name = 'receipts'`).get();
    if (present === undefined) return [];
    const accounts = db.prepare('select account_id from receipts order by account_id, sha256').pluck().all();
    const hashes = db.prepare('select sha256 from receipts order by account_id, sha256').pluck().all();
    return accounts.map((account, i) => ({ account_id: String(account), sha256: String(hashes[i]) }));
  } finally {
    db.close();
  }
}
