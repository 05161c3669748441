import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Executor } from '../../db/database.js';
import type { ReceiptStore } from '../receipts/receipts.service.js';
import { writeReceiptFile } from '../receipts/receipts.service.js';
import { BackupError } from './backup.manifest.js';

export interface StoredReceipt {
  account_id: string;
  sha256: string;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/**
 * Carries the bytes of `receipts` from one receipt store to another (files under a folder, or PostgreSQL's table),
 * each checked against its SHA-256 on the way: a backup, a restore and a copy lose no receipt and carry no damaged
 * one. `to.ex` is the transaction the bytes go in with, for PostgreSQL's store. Returns how many were carried.
 */
export async function carryReceipts(
  receipts: readonly StoredReceipt[],
  from: { store: ReceiptStore; ex: Executor },
  to: { store: ReceiptStore; ex: Executor },
): Promise<number> {
  for (const { account_id, sha256 } of receipts) {
    const stream = await from.store.read(from.ex, account_id, sha256);
    if (stream === null) throw new BackupError(`receipt ${sha256} of account ${account_id}: its bytes are missing`);
    const bytes = await bytesOf(stream);
    const found = createHash('sha256').update(bytes).digest('hex');
    if (found !== sha256) throw new BackupError(`receipt ${sha256} of account ${account_id}: its bytes are damaged`);
    await to.store.write(to.ex, account_id, sha256, bytes);
  }
  return receipts.length;
}

/** Where a backup keeps a receipt's bytes: `<backup>/receipts/<account, base64url>/<sha256>`. */
const inBackup = (dir: string, r: StoredReceipt) =>
  path.join(dir, Buffer.from(r.account_id, 'utf8').toString('base64url'), r.sha256);

/** A SQLite backup's receipts: the bytes of each, read from the live store and checked, into the backup's folder. */
export async function saveReceipts(
  receipts: readonly StoredReceipt[],
  from: { store: ReceiptStore; ex: Executor },
  dir: string,
): Promise<number> {
  for (const r of receipts) {
    const stream = await from.store.read(from.ex, r.account_id, r.sha256);
    if (stream === null) throw new BackupError(`receipt ${r.sha256} of account ${r.account_id}: its bytes are missing`);
    const bytes = await bytesOf(stream);
    if (createHash('sha256').update(bytes).digest('hex') !== r.sha256)
      throw new BackupError(`receipt ${r.sha256} of account ${r.account_id}: its bytes are damaged`);
    const file = inBackup(dir, r);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, bytes, { flag: 'wx' });
    const fd = fs.openSync(file, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  }
  return receipts.length;
}

/** A SQLite backup's receipts back into a file store's folder (`to`), each checked against its SHA-256 first. */
export async function loadReceipts(receipts: readonly StoredReceipt[], dir: string, to: string): Promise<number> {
  for (const r of receipts) {
    const file = inBackup(dir, r);
    if (!fs.existsSync(file)) throw new BackupError(`${file} is missing: the backup is incomplete`);
    const bytes = fs.readFileSync(file);
    if (createHash('sha256').update(bytes).digest('hex') !== r.sha256)
      throw new BackupError(`${file} does not hold the receipt it names: the backup is damaged`);
    await writeReceiptFile(to, r.account_id, r.sha256, bytes);
  }
  return receipts.length;
}
