import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseTarget } from '../../config.js';
import { MIGRATIONS, migrateToLatest } from '../../db/migrate.js';
import { openDatabase } from '../../db/open.js';
import {
  BackupError,
  BackupStopped,
  checksumMustMatch,
  countDifferences,
  DATA_FILE,
  MANIFEST_FILE,
  newManifest,
  readBackup,
  verifiedBackup,
  type BackupManifest,
} from './backup.manifest.js';
import { backupPostgres, postgresTablesAt, restorePostgres } from './backup.postgres.js';
import { loadReceipts, saveReceipts } from './backup.receipts.js';
import { backupSqlite, restoreSqlite, sqliteContents, sqliteReceipts, sqliteTablesAt } from './backup.sqlite.js';
import { receiptStore } from '../receipts/receipts.service.js';

const RECEIPTS_FOLDER = 'receipts';

const PARTIAL = '.partial-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
};

/** Partial backups beside `out` left by a backup process that is gone (killed mid-way): removed. */
function sweepPartials(out: string): void {
  const dir = path.dirname(out);
  const prefix = `${path.basename(out)}${PARTIAL}`;
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && !alive(pid)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Refuses an output (a backup, an account's export) whose folder is not there: a mistyped path is said as such, not
 * as the failure of the first file written into it.
 */
export function folderMustExist(out: string): void {
  const folder = path.dirname(path.resolve(out));
  if (!fs.existsSync(folder)) throw new BackupError(`the folder ${folder} does not exist`);
}

/**
 * A consistent backup of the database while the service runs and writes: into a directory beside `out` under a
 * temporary name, checked (the copy's integrity, its counts, its checksum), then renamed to `out`. A backup cut short
 * leaves only a directory named `<out>.partial-<pid>-…` without a manifest, which the next backup to `out` removes.
 */
export async function takeBackup(
  target: DatabaseTarget & { receiptsDir: string | null },
  out: string,
  meta: {
    svcVersion: string;
    now: Date;
    env: NodeJS.ProcessEnv;
    /** SQLite: read through a memory map (faster; an I/O error then ends the process): the CLI's own process only. */
    memoryMap: boolean;
    /** Ends the backup (its worker threads and pg_dump), leaving nothing of it. */
    signal?: AbortSignal;
  },
): Promise<BackupManifest> {
  const destination = path.resolve(out);
  if (fs.existsSync(destination)) throw new BackupError(`${destination} already exists: a backup never overwrites`);
  folderMustExist(destination);
  sweepPartials(destination);
  const work = `${destination}${PARTIAL}${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(work);
  try {
    const data = path.join(work, DATA_FILE[target.dialect]);
    const read =
      target.dialect === 'sqlite'
        ? await backupSqlite(target.path, data, { memoryMap: meta.memoryMap, signal: meta.signal })
        : await backupPostgres(target.url, data, meta.env, meta.signal);
    if (meta.signal?.aborted) throw new BackupStopped();
    let receipts = 0;
    if (target.dialect === 'sqlite') {
      // Receipt files named by the copy's rows (PostgreSQL keeps their bytes in the dump).
      const named = sqliteReceipts(data);
      if (named.length > 0) {
        const live = openDatabase(target, { poolSize: 1 });
        try {
          const from = { store: receiptStore(target.receiptsDir), ex: live.direct };
          receipts = await saveReceipts(named, from, path.join(work, RECEIPTS_FOLDER));
        } finally {
          await live.close();
        }
      }
    }
    const manifest = newManifest({
      receipts,
      svc_version: meta.svcVersion,
      dialect: target.dialect,
      migrations: read.migrations,
      created_at: meta.now.toISOString(),
      bytes: fs.statSync(data).size,
      sha256: read.sha256,
      tables: read.tables,
    });
    const manifestFile = path.join(work, MANIFEST_FILE);
    fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
    for (const file of [data, manifestFile]) {
      const fd = fs.openSync(file, 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    // The manifest read back as a restore reads it; the data file's checksum was just taken, not read twice.
    await verifiedBackup(work, read.sha256);
    fs.renameSync(work, destination);
    return manifest;
  } catch (error) {
    fs.rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

export interface RestoreReport {
  restored_from: string;
  schema_version: string;
  tables: number;
  rows: number;
  migrations_run: string[];
}

/**
 * Restores the backup in `from` into the database of `target`, which must hold no table: the manifest and the data
 * file's checksum are checked first, the counts before the restore is in place (PostgreSQL: in its transaction),
 * and then the migrations this svc has and the backup had not yet run are run. `env` is the environment pg_restore
 * and psql run in (PATH).
 */
export async function restoreBackup(
  target: DatabaseTarget & { receiptsDir: string | null },
  from: string,
  env: NodeJS.ProcessEnv,
): Promise<RestoreReport> {
  // SQLite: the data file's checksum is taken beside its check and its copy (restoreSqlite); PostgreSQL: first.
  const backup =
    target.dialect === 'sqlite' ? readBackup(path.resolve(from)) : await verifiedBackup(path.resolve(from));
  const { manifest, dataFile } = backup;
  if (manifest.dialect !== target.dialect) {
    throw new BackupError(
      `the backup is of a ${manifest.dialect} database and DATABASE_URL names a ${target.dialect} one: a backup restores into its own dialect`,
    );
  }
  const unknown = manifest.migrations.filter((name) => !(name in MIGRATIONS));
  if (unknown.length > 0) {
    throw new BackupError(
      `the backup was made by a newer svc (schema ${manifest.schema_version}; this svc does not know ${unknown.join(', ')}): restore it with that version or a later one`,
    );
  }
  const present = target.dialect === 'sqlite' ? sqliteTablesAt(target.path) : await postgresTablesAt(target.url);
  if (present.length > 0) {
    throw new BackupError(
      `the database ${target.dialect === 'sqlite' ? target.path : 'named by DATABASE_URL'} is not empty (${present.length} tables): a restore writes only into an empty database`,
    );
  }
  if (target.dialect === 'sqlite') {
    const receiptsDir = target.receiptsDir;
    await restoreSqlite(dataFile, target.path, async (sha256, checked) => {
      // Refused before the copy is in place: a damaged file, then a manifest that does not describe its data file.
      checksumMustMatch(backup, sha256);
      const differences = countDifferences(manifest.tables, checked().tables);
      if (differences.length > 0)
        throw new BackupError(`the backup's data file does not hold what its manifest says: ${differences.join('; ')}`);
      // The receipts' files, each checked: a backup missing one is refused before the database is in place (files
      // written meanwhile name no row, and the server's sweep removes them).
      const named = sqliteReceipts(dataFile);
      if (named.length > 0) {
        if (receiptsDir === null) throw new BackupError('the backup holds receipts and no receipts folder is set');
        await loadReceipts(named, path.join(path.resolve(from), RECEIPTS_FOLDER), receiptsDir);
      }
    });
    const restored = countDifferences(manifest.tables, sqliteContents(target.path).tables);
    if (restored.length > 0)
      throw new BackupError(`the restored database does not hold what the backup says: ${restored.join('; ')}`);
    // PostgreSQL: the counts are compared in the restore's transaction, before it commits.
  } else await restorePostgres(dataFile, target.url, env, manifest.tables);
  const db = openDatabase(target, { poolSize: 1 });
  let migrationsRun: string[];
  try {
    migrationsRun = await migrateToLatest(db);
  } finally {
    await db.close();
  }
  return {
    restored_from: path.resolve(from),
    schema_version: manifest.schema_version,
    tables: Object.keys(manifest.tables).length,
    rows: Object.values(manifest.tables).reduce((a, b) => a + b, 0),
    migrations_run: migrationsRun,
  };
}
