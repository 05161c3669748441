import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { BackupError, BackupStopped, sha256Of } from './backup.manifest.js';
import { BACKUP_NICE, LOWER_OWN_PRIORITY } from './backup.priority.js';

/**
 * How long the backup's connection waits for a lock another connection holds (a checkpoint, say): a minute, so that
 * a backup started while the file is busy waits rather than fails (and the test that holds it there never races it).
 */
const LOCK_WAIT_MS = 60_000;

/**
 * SQLite's largest memory map on Linux (SQLITE_MAX_MMAP_SIZE, 2 GiB less 64 KiB): the backup reads the source's pages,
 * and the check the copy's, from the map instead of a read() call and a copy per 4 KiB page. An I/O error on a mapped
 * file cannot be answered as an error: the kernel ends the process (SIGBUS). So the map is the CLI's alone (a failed
 * `svc backup` is a failed command); a backup in the server's process (the schedule) reads with read() calls.
 */
export const MAP_BYTES = 0x7fff0000;

export interface SqliteCopy {
  tables: Record<string, number>;
  migrations: string[];
  sha256: string;
}

/**
 * The backup's SQLite work in a worker thread, so that a backup in the server's process (the schedule) never holds
 * its event loop: better-sqlite3 copies all pages in one synchronous call, and waits for a lock synchronously too.
 * The worker copies the live database through the online backup API in one step (one read transaction: a snapshot,
 * while the service writes) into a destination of 64 KiB pages (the same bytes, written 16 source pages at a time),
 * makes the copy a rollback-journal database, says so, then checks it and counts its rows.
 * The parent hashes the copy in a second worker from that moment, beside the check. Plain CommonJS given as text (as
 * the hash worker's), so that the bundled CLI and server carry it; the driver is passed by its resolved path.
 */
const SQLITE_WORKER = `${LOWER_OWN_PRIORITY}
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { source, target, lockWaitMs, mapBytes, stop } = workerData;
// Set by the parent when the backup is stopped: looked at between SQLite's calls (a thread inside one cannot be
// ended safely: the driver would raise its error in a stopped thread, which ends the whole process).
const stopped = () => Atomics.load(stop, 0) === 1;
class Stopped extends Error {}
const SLICE_MS = 250;
async function copyOnce() {
  // The wait for a lock in slices, so that a stop is seen within one.
  const live = new Database(source, { readonly: true, fileMustExist: true, timeout: SLICE_MS });
  try {
    live.pragma('mmap_size = ' + mapBytes);
    await live.backup(target, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
}
// The copy's file made first, empty but for its first page, with SQLite's largest page (64 KiB): a destination whose
// page is larger than the source's takes SQLite's backup path for unlike pages, which places each source page in
// its own place of a destination page, so that the file comes out the same bytes, the source's page size in its
// header; but the destination's pager writes, and keeps in its cache, one page per 16 of the source's, where a like
// page size wrote the copy 4 KiB at a time (a system call and a small page-cache entry each: the copy's main cost).
// A source of 64 KiB pages is copied alike.
function wideDestination() {
  const dest = new Database(target);
  try {
    dest.pragma('journal_mode = DELETE');
    dest.pragma('page_size = 65536');
    dest.pragma('user_version = 1'); // writes the first page: the page size is the file's from here on
  } finally {
    dest.close();
  }
}
async function copy() {
  const deadline = Date.now() + lockWaitMs;
  // Before the retries: a copy refused for a lock leaves this file as it was (its transaction rolled back).
  wideDestination();
  for (;;) {
    if (stopped()) throw new Stopped();
    try {
      return await copyOnce();
    } catch (error) {
      const busy = error && /^SQLITE_(BUSY|LOCKED)/.test(String(error.code)); // extended codes too
      if (!busy || Date.now() >= deadline) throw error;
    }
  }
}
async function copyAndCheck() {
  await copy();
  if (stopped()) throw new Stopped();
  const copy_ = new Database(target, { fileMustExist: true });
  try {
    copy_.pragma('journal_mode = DELETE');
    copy_.pragma('mmap_size = ' + mapBytes);
    parentPort.postMessage({ copied: true });
    const check = copy_.pragma('quick_check', { simple: true });
    if (check !== 'ok') return { check: String(check) };
    // As sqliteContents() counts (backup.sqlite.ts).
    const names = copy_
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
      .pluck()
      .all()
      .map(String);
    const tables = {};
    for (const name of names) {
      if (stopped()) throw new Stopped();
      tables[name] = Number(copy_.prepare('select count(*) from "' + name.replaceAll('"', '""') + '"').pluck().get());
    }
    const migrations = names.includes('kysely_migration')
      ? copy_.prepare('select name from kysely_migration order by name').pluck().all().map(String)
      : [];
    return { check, tables, migrations };
  } finally {
    copy_.close();
  }
}
copyAndCheck().then(
  (done) => parentPort.postMessage({ done }),
  (error) =>
    error instanceof Stopped
      ? parentPort.postMessage({ stopped: true })
      : parentPort.postMessage({ failed: { message: String(error && error.message), code: error && error.code } }),
);
`;

type Message =
  | { copied: true }
  | { stopped: true }
  | { done: { check: string; tables?: Record<string, number>; migrations?: string[] } }
  | { failed: { message: string; code?: string } };

/**
 * Copies the live database at `source` to `target` through SQLite's online backup API (never a file copy of a live
 * database), checks the copy with `quick_check` and counts its rows, in a worker thread; the copy's SHA-256 is taken
 * in another worker while it is checked.
 */
export function copyAndCheckSqlite(
  source: string,
  target: string,
  options: { memoryMap: boolean; signal?: AbortSignal },
): Promise<SqliteCopy> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const mapBytes = options.memoryMap ? MAP_BYTES : 0;
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(SQLITE_WORKER, {
    eval: true,
    workerData: { driver, source, target, lockWaitMs: LOCK_WAIT_MS, mapBytes, stop, nice: BACKUP_NICE },
  });
  // The checksum's own stop: the backup's signal, or a copy refused after it started (its hash is not wanted).
  const hashStop = new AbortController();
  let hashing: Promise<string> | undefined;
  let onAbort = () => {};
  let aborted = false;
  const checked = new Promise<{ tables: Record<string, number>; migrations: string[] }>((resolve, reject) => {
    onAbort = () => {
      // Told, not ended (see the worker): it leaves at its next look, with its connections closed, and holds this
      // process open no longer meanwhile. The stop is answered when it has left (its last message, or its exit):
      // whoever cleans up after the backup then finds no thread of it still holding the database or the copy.
      aborted = true;
      Atomics.store(stop, 0, 1);
      worker.unref();
      hashStop.abort();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: Message) => {
      if ('copied' in message) {
        hashing = sha256Of(target, { signal: hashStop.signal, nice: BACKUP_NICE });
        // Awaited below once the check has passed; a refused copy's hash is not wanted, nor its failure.
        hashing.catch(() => undefined);
      } else if ('stopped' in message || aborted) reject(new BackupStopped());
      else if ('failed' in message) {
        reject(Object.assign(new Error(message.failed.message), { code: message.failed.code }));
      } else if (message.done.check !== 'ok') {
        reject(new BackupError(`the copy failed SQLite's quick check: ${message.done.check}`));
      } else resolve({ tables: message.done.tables ?? {}, migrations: message.done.migrations ?? [] });
    });
    worker.once('error', (error) => reject(aborted ? new BackupStopped() : error));
    worker.once('exit', (code) =>
      reject(aborted ? new BackupStopped() : new Error(`the backup's worker stopped (exit ${code})`)),
    );
  }).finally(() => options.signal?.removeEventListener('abort', onAbort));
  return checked.then(
    async (counted) => {
      if (hashing === undefined) throw new Error("the backup's worker checked a copy it did not announce");
      return { ...counted, sha256: await hashing };
    },
    (error: unknown) => {
      hashStop.abort();
      throw error;
    },
  );
}
