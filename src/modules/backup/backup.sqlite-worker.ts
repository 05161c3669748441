import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BackupError, sha256Of } from './backup.manifest.js';

/**
 * How long the backup's connection waits for a lock another connection holds (a checkpoint, say): a minute, so that
 * a backup started while the file is busy waits rather than fails (and the test that holds it there never races it).
 */
const LOCK_WAIT_MS = 60_000;

/**
 * SQLite's largest memory map on Linux (SQLITE_MAX_MMAP_SIZE, 2 GiB less 64 KiB): the backup reads the source's pages,
 * and the check the copy's, from the map instead of a read() call and a copy per 4 KiB page.
 */
const MAP_BYTES = 0x7fff0000;

export interface SqliteCopy {
  tables: Record<string, number>;
  migrations: string[];
  sha256: string;
}

/**
 * The backup's SQLite work in a worker thread, so that a backup in the server's process (the schedule) never holds
 * its event loop: better-sqlite3 copies all pages in one synchronous call, and waits for a lock synchronously too.
 * The worker copies the live database through the online backup API in one step (one read transaction: a snapshot,
 * while the service writes), makes the copy a rollback-journal database, says so, then checks it and counts its rows.
 * The parent hashes the copy in a second worker from that moment, beside the check. Plain CommonJS given as text (as
 * the hash worker's), so that the bundled CLI and server carry it; the driver is passed by its resolved path.
 */
const SQLITE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { source, target, lockWaitMs, mapBytes } = workerData;
async function copyAndCheck() {
  const live = new Database(source, { readonly: true, fileMustExist: true, timeout: lockWaitMs });
  try {
    live.pragma('mmap_size = ' + mapBytes);
    await live.backup(target, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    copy.pragma('mmap_size = ' + mapBytes);
    parentPort.postMessage({ copied: true });
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') return { check: String(check) };
    // As sqliteContents() counts (backup.sqlite.ts).
    const names = copy
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
      .pluck()
      .all()
      .map(String);
    const tables = {};
    for (const name of names)
      tables[name] = Number(copy.prepare('select count(*) from "' + name.replaceAll('"', '""') + '"').pluck().get());
    const migrations = names.includes('kysely_migration')
      ? copy.prepare('select name from kysely_migration order by name').pluck().all().map(String)
      : [];
    return { check, tables, migrations };
  } finally {
    copy.close();
  }
}
copyAndCheck().then(
  (done) => parentPort.postMessage({ done }),
  (error) => parentPort.postMessage({ failed: { message: String(error && error.message), code: error && error.code } }),
);
`;

type Message =
  | { copied: true }
  | { done: { check: string; tables?: Record<string, number>; migrations?: string[] } }
  | { failed: { message: string; code?: string } };

/**
 * Copies the live database at `source` to `target` through SQLite's online backup API (never a file copy of a live
 * database), checks the copy with `quick_check` and counts its rows, in a worker thread; the copy's SHA-256 is taken
 * in another worker while it is checked.
 */
export function copyAndCheckSqlite(source: string, target: string): Promise<SqliteCopy> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SQLITE_WORKER, {
    eval: true,
    workerData: { driver, source, target, lockWaitMs: LOCK_WAIT_MS, mapBytes: MAP_BYTES },
  });
  let hashing: Promise<string> | undefined;
  const checked = new Promise<{ tables: Record<string, number>; migrations: string[] }>((resolve, reject) => {
    worker.on('message', (message: Message) => {
      if ('copied' in message) {
        hashing = sha256Of(target);
        // Awaited below once the check has passed; a refused copy's hash is not wanted, nor its failure.
        hashing.catch(() => undefined);
      } else if ('failed' in message) {
        reject(Object.assign(new Error(message.failed.message), { code: message.failed.code }));
      } else if (message.done.check !== 'ok') {
        reject(new BackupError(`the copy failed SQLite's quick check: ${message.done.check}`));
      } else resolve({ tables: message.done.tables ?? {}, migrations: message.done.migrations ?? [] });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the backup's worker stopped (exit ${code})`)));
  });
  return checked.then(async (counted) => {
    if (hashing === undefined) throw new Error("the backup's worker checked a copy it did not announce");
    return { ...counted, sha256: await hashing };
  });
}
