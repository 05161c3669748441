import type { Readable } from 'node:stream';
import type { Db, Executor } from '../../db/database.js';

/** A part of a receipt's bytes: from `start` to `end`, both included (an HTTP byte range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where a receipt's bytes live, addressed by account and SHA-256 (docs/receipts.md): one implementation per place,
 * each in its own file. `write` makes the bytes durable in a step of their own, before the short transaction that
 * writes the receipt's row and attaches it (so that no lock of that transaction is held while megabytes are
 * flushed): the bytes are durable before the row is, and bytes no committed row names (an upload killed between
 * the two) are found by nobody (a reader goes through the row) and removed by `sweep`.
 */
export interface ReceiptStore {
  readonly kind: 'files' | 'postgres';
  /**
   * Before the row's transaction, on `ex` outside any transaction: the bytes made durable (files: a temporary
   * name, flushed, renamed into place; PostgreSQL: a row of receipt_contents, committed on its own). Bytes there
   * already that are not whole (`holds`) are replaced.
   */
  write(ex: Executor, accountId: string, sha256: string, bytes: Buffer): Promise<void>;
  /**
   * Whether the store has the bytes whole (`size` bytes of this SHA-256), on `ex` outside any transaction: a receipt
   * row's bytes lost or damaged by hand (a file deleted on the file store, a row of receipt_contents deleted) are
   * not, and an upload of the same bytes writes them again.
   */
  holds(ex: Executor, accountId: string, sha256: string, size: number): Promise<boolean>;
  /**
   * In the transaction that writes the receipt's row, before it: the bytes are kept until it commits (PostgreSQL:
   * their row locked against the sweep, or written again when a sweep took them since `write`).
   */
  keep(ex: Executor, accountId: string, sha256: string, bytes: Buffer): Promise<void>;
  /** The bytes (or the range of them) of a stored receipt; null when absent. */
  read(ex: Executor, accountId: string, sha256: string, range?: ByteRange): Promise<Readable | null>;
  /**
   * Removes what no committed row names: unfinished writes and bytes of uploads that never committed, older than
   * `graceMs` (so that an upload under way in another process is not taken for one). Returns how many.
   */
  sweep(db: Db, known: (accountId: string, sha256: string) => Promise<boolean>, graceMs: number): Promise<number>;
}
