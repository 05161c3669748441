import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { accountingService } from '../accounting/accounting.service.js';
import type { Caller } from '../auth/auth.service.js';
import { receiptLinksService } from './receipt-links.service.js';
import { receiptsRepository as repo } from './receipts.repository.js';
import type { ByteRange, ReceiptStore } from './receipts.store.js';
import type { ReceiptsTable } from './receipts.tables.js';
import { heicDecodable, IMAGE_TYPES, RECEIPT_TYPES, recognise, type ReceiptType } from './receipts.types.js';
import { thumbnailOf } from './receipts.thumbnails.js';
import { fileStore } from './files.store.js';
import { postgresStore } from './postgres-store.repository.js';

/** What the upload route hands over: the file's bytes, as sent. */
export interface Upload {
  bytes: Buffer;
  /** The file's name, as the client gave it (multipart); only ever shown back, never used to decide anything. */
  filename: string | null;
}

export interface ReceiptDto {
  id: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  created_at: string;
  download_uri: string;
  thumbnail_uri: string | null;
}

export interface ReceiptsSettings {
  store: ReceiptStore;
  maxBytes: number;
  perRecord: number;
}

/** Where receipts live: files in `dir` (SQLite, the embedded default), or PostgreSQL itself (dir null). */
export function receiptStore(dir: string | null): ReceiptStore {
  return dir === null ? postgresStore() : fileStore(dir);
}

// An upload's digest is asked for three times (its Idempotency-Key fingerprint, the file's name, the row): once is
// enough, and hashing 10 MB is not free.
const digests = new WeakMap<Buffer, string>();
function sha256Of(bytes: Buffer): string {
  let digest = digests.get(bytes);
  if (digest === undefined) {
    digest = createHash('sha256').update(bytes).digest('hex');
    digests.set(bytes, digest);
  }
  return digest;
}

function toDto(row: ReceiptsTable, accountId: string): ReceiptDto {
  const image = (IMAGE_TYPES as readonly string[]).includes(row.content_type);
  return {
    id: row.id,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    created_at: microsToIso(Number(row.created_at)),
    download_uri: receiptLinksService.link(accountId, row.id),
    thumbnail_uri: image ? receiptLinksService.link(accountId, row.id, 'thumbnail') : null,
  };
}

/** What a signed link carries (receipt-links.service.ts). */
export interface SignedLink {
  account: string;
  receiptId: string;
  expires: number;
  signature: string;
}

/**
 * Receipts svc stores (docs/receipts.md): recognised by their bytes, stored once per account and content, attached
 * to records through accounting's service, served through signed links.
 */
export function receiptsService(settings: ReceiptsSettings) {
  const { store } = settings;

  return {
    /** A description of an upload for its Idempotency-Key: the same bytes are the same request. */
    fingerprint(upload: Upload): { sha256: string; size_bytes: number } {
      return { sha256: sha256Of(upload.bytes), size_bytes: upload.bytes.length };
    },

    /**
     * Before the transaction: 404 for a record the account does not have, then the bytes checked (size, type),
     * then made durable where the store keeps them, in a step of their own (files: a whole file in place;
     * PostgreSQL: a row of receipt_contents, committed), not yet named by any receipt.
     */
    async stage(db: Db, caller: Caller, recordId: string, upload: Upload): Promise<ReceiptType> {
      // One statement: no snapshot of its own needed.
      await accountingService.receipts.mustExist(db.direct, caller, recordId);
      return this.stageUnattached(db, caller, upload);
    },

    /** As `stage`, for an upload tied to no record (named by ingestion later): the bytes checked and written. */
    async stageUnattached(db: Db, caller: Caller, upload: Upload): Promise<ReceiptType> {
      if (upload.bytes.length === 0) throw errors.receiptMissing();
      if (upload.bytes.length > settings.maxBytes) throw errors.receiptTooLarge(settings.maxBytes);
      const found = await recognise(upload.bytes);
      if (!found.ok) throw errors.unsupportedReceiptType(found.found, RECEIPT_TYPES, await heicDecodable());
      const sha256 = sha256Of(upload.bytes);
      // Stored already (uploaded again, or a retry): a named receipt's bytes are never swept, so nothing to write,
      // unless they were lost or damaged by hand since: then these bytes, the same, repair them.
      const named = await repo.findBySha(db.direct, caller.accountId, sha256);
      if (!named || !(await store.holds(db.direct, caller.accountId, sha256, upload.bytes.length)))
        await store.write(db.direct, caller.accountId, sha256, upload.bytes);
      return found.type;
    },

    /**
     * In the transaction: the receipt's row (once per account and content), its bytes kept with it (the store's
     * keep). Inserted at once (a new receipt: no read first); the same bytes stored already, the row found.
     */
    async keep(ex: Executor, caller: Caller, upload: Upload, type: ReceiptType): Promise<ReceiptsTable> {
      const sha256 = sha256Of(upload.bytes);
      const row: ReceiptsTable = {
        account_id: caller.accountId,
        id: newId('rcpt'),
        sha256,
        content_type: type,
        size_bytes: upload.bytes.length,
        created_at: nowMicros(),
      };
      if (await repo.insert(ex, row)) {
        await store.keep(ex, caller.accountId, sha256, upload.bytes);
        return row;
      }
      const stored = await repo.findBySha(ex, caller.accountId, sha256);
      if (!stored) throw errors.internal();
      return stored;
    },

    /** In the transaction: the receipt stored (once per account and content) and attached to the record. */
    async attachUpload(ex: Executor, caller: Caller, recordId: string, upload: Upload, type: ReceiptType) {
      const row = await this.keep(ex, caller, upload, type);
      const { record } = await accountingService.receipts.attach(ex, caller, recordId, row.id, settings.perRecord);
      return { receipt: toDto(row, caller.accountId), record };
    },

    /** In the transaction: the receipt stored, attached to nothing yet (ingestion names it by its id). */
    async keepUnattached(ex: Executor, caller: Caller, upload: Upload, type: ReceiptType): Promise<ReceiptDto> {
      return toDto(await this.keep(ex, caller, upload, type), caller.accountId);
    },

    /** Removes a receipt from a record; the receipt stays stored (the record's history names it). */
    async detach(ex: Executor, caller: Caller, recordId: string, receiptId: string) {
      const { record } = await accountingService.receipts.remove(ex, caller, recordId, receiptId);
      return { record };
    },

    /** A receipt the account stores, as a caller reads it; 404 otherwise. */
    async get(ex: Executor, caller: Caller, receiptId: string): Promise<ReceiptDto> {
      const row = await repo.find(ex, caller.accountId, receiptId);
      if (!row) throw errors.notFound(`Receipt ${receiptId}`, { receipt_id: receiptId });
      return toDto(row, caller.accountId);
    },

    /** The receipt a signed link names: 403 for a forged or expired link, 404 for a receipt the account has not. */
    async find(ex: Executor, link: SignedLink): Promise<ReceiptsTable> {
      receiptLinksService.verify(link);
      const receipt = await repo.find(ex, link.account, link.receiptId);
      if (!receipt) throw errors.notFound(`Receipt ${link.receiptId}`, { receipt_id: link.receiptId });
      return receipt;
    },

    /** The bytes of a receipt found by `find` (or a range of them). */
    async bytes(ex: Executor, receipt: ReceiptsTable, range?: ByteRange): Promise<Readable> {
      const body = await store.read(ex, receipt.account_id, receipt.sha256, range);
      // A row without its bytes: the store lost what it acknowledged.
      if (!body) throw errors.internal();
      return body;
    },

    /** A JPEG thumbnail of an image receipt (at most 320 px on a side); 404 for a PDF, which has none. */
    async thumbnail(ex: Executor, receipt: ReceiptsTable): Promise<Buffer> {
      if (!(IMAGE_TYPES as readonly string[]).includes(receipt.content_type)) {
        throw errors.notFound(`A thumbnail of receipt ${receipt.id} (a PDF has none)`, { receipt_id: receipt.id });
      }
      return thumbnailOf(await this.bytes(ex, receipt));
    },

    /** Removes stored bytes no receipt names (uploads killed before they committed). */
    async sweep(db: Db, graceMs: number): Promise<number> {
      return store.sweep(
        db,
        async (accountId, sha256) => (await repo.findBySha(db.direct, accountId, sha256)) !== undefined,
        graceMs,
      );
    },
  };
}

export type ReceiptsService = ReturnType<typeof receiptsService>;
export type { ReceiptStore } from './receipts.store.js';
export { writeReceiptFile } from './files.store.js';
