import type { Readable } from 'node:stream';
import type { Executor } from '../../db/database.js';

/** A part of a receipt's bytes: from `start` to `end`, both included (an HTTP byte range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where a receipt's bytes live, addressed by account and SHA-256 (docs/receipts.md): one implementation per place,
 * each in its own file. `write` runs before the transaction that writes the receipt's row and `put` inside it, before it commits:
 * the bytes are durable when the row is, and a write that never commits leaves nothing a reader can find
 * (PostgreSQL: rolled back with it; files: a file no row names, removed by `sweep`).
 */
export interface ReceiptStore {
  readonly kind: 'files' | 'postgres';
  /** Before the transaction: the file store writes the file (under a temporary name, then renamed into place). */
  write(accountId: string, sha256: string, bytes: Buffer): Promise<void>;
  /** Inside the transaction that writes the receipt's row: PostgreSQL's store writes the bytes. */
  put(ex: Executor, accountId: string, sha256: string, bytes: Buffer): Promise<void>;
  /** The bytes (or the range of them) of a stored receipt; null when absent. */
  read(ex: Executor, accountId: string, sha256: string, range?: ByteRange): Promise<Readable | null>;
  /**
   * Removes what no committed row names: unfinished writes and files of uploads that never committed, older than
   * `graceMs` (so that an upload under way in another process is not taken for one). Returns how many.
   */
  sweep(known: (accountId: string, sha256: string) => Promise<boolean>, graceMs: number): Promise<number>;
}
