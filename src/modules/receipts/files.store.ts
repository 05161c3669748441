import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isRecord } from '../../lib/guards.js';
import type { ByteRange, ReceiptStore } from './receipts.store.js';
import { syncFolder } from '../../lib/durable.js';

/**
 * Receipts as files under the data folder (the embedded SQLite default): `<dir>/<account>/<ab>/<sha256>`, the
 * account's folder named by its id in base64url (any id is a safe name). A file is written under a temporary
 * name in `<dir>/.partial/`, flushed to disk, then renamed into place (atomic on one file system): a file in
 * place is whole. An upload killed before its row commits leaves a file no row names; `sweep` removes it.
 */
const PARTIAL = '.partial';

const folderOf = (accountId: string) => Buffer.from(accountId, 'utf8').toString('base64url');

const pathIn = (dir: string, accountId: string, sha256: string) =>
  path.join(dir, folderOf(accountId), sha256.slice(0, 2), sha256);

/**
 * A receipt's file written whole into `dir` (a file store's folder): under a temporary name, flushed, then renamed
 * into place (the same bytes there already, by a concurrent upload of them, are replaced by the same bytes).
 */
export async function writeReceiptFile(dir: string, accountId: string, sha256: string, bytes: Buffer): Promise<void> {
  try {
    await writeFile(dir, accountId, sha256, bytes);
  } catch (error) {
    // A folder this process made is gone (removed by hand): made again, once.
    if (!isRecord(error) || error.code !== 'ENOENT') throw error;
    made.clear();
    await writeFile(dir, accountId, sha256, bytes);
  }
}

async function writeFile(dir: string, accountId: string, sha256: string, bytes: Buffer): Promise<void> {
  const target = pathIn(dir, accountId, sha256);
  await folder(path.join(dir, PARTIAL));
  await folder(path.dirname(target));
  const partial = path.join(dir, PARTIAL, `${randomBytes(12).toString('hex')}.part`);
  try {
    const handle = await fsp.open(partial, 'wx', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(partial, target);
  } catch (error) {
    // A write that failed (a full disk, an I/O error, a name in the way) leaves no partial file to wait for the
    // sweep: the upload fails, and nothing of it stays.
    await remove(partial);
    throw error;
  }
  // The name made durable too: a directory's entries reach the disk with the directory's own flush, and an
  // acknowledged receipt must survive a power cut, not only a crash of the process.
  await syncFolder(path.dirname(target));
}

/**
 * Folders made by this process (none is removed but by hand): one mkdir each, not one per upload. The promise is
 * shared, so that an upload into a folder another upload is making waits until that folder's name is flushed too.
 */
const made = new Map<string, Promise<void>>();
function folder(name: string): Promise<void> {
  let making = made.get(name);
  if (!making) {
    making = makeFolder(name);
    made.set(name, making);
    making.catch(() => made.delete(name));
  }
  return making;
}

async function makeFolder(name: string): Promise<void> {
  const first = await fsp.mkdir(name, { recursive: true });
  // Each folder made here is named in its parent durably, as the files in it are (writeFile).
  if (first !== undefined)
    for (let at = name; ; at = path.dirname(at)) {
      await syncFolder(path.dirname(at));
      if (at === first || path.dirname(at) === at) break;
    }
}

/** Whether the file at `file` is `size` bytes whose SHA-256 is `sha256`: a file lost or damaged by hand is not. */
async function whole(file: string, sha256: string, size: number): Promise<boolean> {
  const stat = await fsp.stat(file).catch(() => null);
  if (stat === null || !stat.isFile() || stat.size !== size) return false;
  // At most a receipt's size limit, read only when the same bytes are uploaded again.
  const content = await fsp.readFile(file).catch(() => null);
  return content !== null && createHash('sha256').update(content).digest('hex') === sha256;
}

export function fileStore(dir: string): ReceiptStore {
  const pathOf = (accountId: string, sha256: string) => pathIn(dir, accountId, sha256);

  return {
    kind: 'files',

    async write(_ex, accountId, sha256, bytes) {
      await writeReceiptFile(dir, accountId, sha256, bytes);
    },

    async holds(_ex, accountId, sha256, size) {
      return whole(pathOf(accountId, sha256), sha256, size);
    },

    async keep() {
      // The file is in place (write); the sweep takes none younger than its grace, nor any at start but alone.
    },

    async read(_ex, accountId, sha256, range?: ByteRange) {
      const file = pathOf(accountId, sha256);
      try {
        await fsp.access(file, fs.constants.R_OK);
      } catch {
        return null;
      }
      return fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
    },

    async sweep(_db, known, graceMs) {
      const before = Date.now() - graceMs;
      const old = async (file: string) => {
        const stat = await fsp.stat(file).catch(() => null);
        return stat !== null && stat.mtimeMs <= before;
      };
      let removed = 0;
      const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        const folder = path.join(dir, entry.name);
        if (entry.name === PARTIAL) {
          for (const name of await fsp.readdir(folder)) {
            const file = path.join(folder, name);
            if (await old(file)) removed += await remove(file);
          }
          continue;
        }
        const accountId = Buffer.from(entry.name, 'base64url').toString('utf8');
        for (const prefix of await fsp.readdir(folder)) {
          for (const sha256 of await fsp.readdir(path.join(folder, prefix)).catch(() => [])) {
            const file = path.join(folder, prefix, sha256);
            if ((await old(file)) && !(await known(accountId, sha256))) removed += await remove(file);
          }
        }
      }
      return removed;
    },
  };
}

async function remove(file: string): Promise<number> {
  try {
    await fsp.unlink(file);
    return 1;
  } catch {
    return 0;
  }
}
