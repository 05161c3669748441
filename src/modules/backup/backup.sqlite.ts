import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { databaseMustExist } from '../../db/open.js';
import { syncFolder } from '../../lib/durable.js';
import { BackupError, sha256Of } from './backup.manifest.js';
import { copyAndCheckSqlite, MAP_BYTES, type SqliteCopy } from './backup.sqlite-worker.js';

type Contents = { tables: Record<string, number>; migrations: string[] };

/** Rows per table and the migrations run, read from an open SQLite database (the backup's worker counts alike). */
function contents(db: SqliteDatabase.Database): Contents {
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
 * database. The copy is then checked and counted, in a worker thread (backup.sqlite-worker.ts), and hashed in another
 * beside the check. The check is SQLite's `quick_check` (every page, record and structure of the file; not whether
 * each index holds exactly its table's rows, which `integrity_check` also proves at 6× the time): the copy is page
 * for page the source's snapshot, so what it could break is the file's structure.
 */
export async function backupSqlite(
  source: string,
  target: string,
  options: { memoryMap: boolean; signal?: AbortSignal },
): Promise<SqliteCopy> {
  databaseMustExist({ dialect: 'sqlite', path: source });
  return copyAndCheckSqlite(source, target, options);
}

/** The outermost of `file` and its folders that is not there (null when `file` is). */
function outermostMissing(file: string): string | null {
  let missing: string | null = null;
  for (let at = path.resolve(file); !fs.existsSync(at); at = path.dirname(at)) missing = at;
  return missing;
}

/**
 * What opening `file` as a new database would make (the file, or the outermost folder of it that is not there yet)
 * and what writing receipts into `receiptsDir` would, for a caller that removes them when its work fails: a failed
 * copy leaves no database behind that it made. Nothing of a file that is there already.
 */
export function madeByOpening(file: string, receiptsDir: string | null): string[] {
  const made: string[] = [];
  const outermost = outermostMissing(file);
  if (outermost === null) return made;
  const target = path.resolve(file);
  if (outermost === target) made.push(target, `${target}-wal`, `${target}-shm`, `${target}-journal`);
  else made.push(outermost);
  const receipts = receiptsDir === null ? null : outermostMissing(receiptsDir);
  if (receipts !== null) made.push(receipts);
  return made;
}

/** Rows per table of a SQLite database file (a backup's data file, or a restored database). */
export function sqliteContents(file: string): Contents {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return contents(db);
  } finally {
    db.close();
  }
}

/**
 * A backup's data file read before a restore puts it in place: SQLite's `quick_check` over every page (as the backup
 * checked its copy: a file damaged after its checksum was taken, or with its manifest rewritten to match, would
 * otherwise be restored as it is, and fail only where a later read meets the damage), then its rows per table.
 */
function checkedSqliteContents(file: string): Contents {
  try {
    const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
    try {
      // Read through a memory map (a CLI's, for the length of the check): half the time of reads into SQLite's cache.
      db.pragma(`mmap_size = ${MAP_BYTES}`);
      const check = String(db.pragma('quick_check', { simple: true })).replaceAll('\n', '; ');
      if (check !== 'ok') throw new BackupError(`${file} fails SQLite's check (${check}): the backup is damaged`);
      return contents(db);
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof SqliteDatabase.SqliteError && /^SQLITE_(CORRUPT|NOTADB)/.test(error.code))
      throw new BackupError(`${file} is not a sound SQLite database (${error.message}): the backup is damaged`);
    throw error;
  }
}

/** The tables an existing SQLite file holds (none when there is no file): a restore writes only into none. */
export function sqliteTablesAt(file: string): string[] {
  if (!fs.existsSync(file) || fs.statSync(file).size === 0) return [];
  return Object.keys(sqliteContents(file).tables);
}

/**
 * Restores the backup's data file at `target` (which holds no table), reading it three ways at once: its SHA-256 in
 * a worker thread, SQLite's `quick_check` and its counts on this thread (checkedSqliteContents), and its copy beside
 * the target under a temporary name (a clone where the filesystem can, else the kernel's copy; on libuv's pool),
 * flushed. Then `accept` is given the checksum and the check (which throws the check's refusal) and may refuse; only
 * then is the copy renamed into place. A refused or failed restore leaves nothing: not the copy, nor a folder it
 * made for it.
 */
export async function restoreSqlite(
  dataFile: string,
  target: string,
  accept: (sha256: string, checked: () => Contents) => Promise<void>,
): Promise<void> {
  const folder = path.dirname(path.resolve(target));
  const madeFolder = outermostMissing(folder);
  fs.mkdirSync(folder, { recursive: true });
  const temporary = `${target}.restoring-${process.pid}`;
  let placed = false;
  try {
    const hashing = sha256Of(dataFile);
    const copying = copyFlushed(dataFile, temporary);
    // Both are awaited below, whatever the check finds; neither may go unhandled meanwhile.
    hashing.catch(() => undefined);
    copying.catch(() => undefined);
    let checked: () => Contents;
    try {
      const contents = checkedSqliteContents(dataFile);
      checked = () => contents;
    } catch (error) {
      checked = () => {
        throw error;
      };
    }
    const [sha256] = await Promise.all([hashing, copying]);
    await accept(sha256, checked);
    for (const leftover of [`${target}-wal`, `${target}-shm`]) fs.rmSync(leftover, { force: true });
    fs.renameSync(temporary, target);
    placed = true;
    // The rename made durable: the folder's entries flushed too.
    await syncFolder(folder);
  } finally {
    fs.rmSync(temporary, { force: true });
    if (!placed && madeFolder !== null) fs.rmSync(madeFolder, { recursive: true, force: true });
  }
}

async function copyFlushed(from: string, to: string): Promise<void> {
  // A clone where the filesystem shares blocks (XFS, Btrfs: no bytes copied), else the kernel's copy (ext4).
  await fs.promises.copyFile(from, to, fs.constants.COPYFILE_FICLONE);
  const file = await fs.promises.open(to, 'r+');
  try {
    await file.sync();
  } finally {
    await file.close();
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
