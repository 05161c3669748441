import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { authRepository } from './auth.repository.js';
import type { AccessTokensTable } from './auth.tables.js';

interface Waiting {
  row: AccessTokensTable;
  resolve(): void;
  reject(error: unknown): void;
}

/** Rows per transaction: 7 columns × 500 rows stays far below both dialects' bound-parameter limits. */
const MAX_BATCH = 500;

/**
 * Group commit of access tokens (issue 16). Each token is a row that must be durable before it is handed out,
 * and a commit costs one WAL fsync (SQLite `synchronous = FULL`, PostgreSQL's `fsync`): one commit per token made
 * token issuance as slow as the disk. Tokens asked for at the same time are written in one transaction instead,
 * one commit for all of them, and each request is answered only once that commit is done: the same durability,
 * the fsync shared.
 *
 * A write starts on the next turn of the event loop (`setImmediate`, after the requests that arrived in the same
 * turn have added theirs), and the tokens asked for while it commits go in the next one. A request alone waits
 * one turn, not a timer. When a group's transaction fails, each of its rows is tried again in a transaction of its
 * own, so that a request fails only for its own row (with its error: a 503 when the database is away, as before).
 */
export class TokenWriter {
  readonly #db: Db;
  readonly #deadlineMs: number;
  #waiting: Waiting[] = [];
  #scheduled = false;
  #writing = false;

  /**
   * `deadlineMs`: how long a group's requests wait for its commit. Past it they are answered 503 and the next group
   * starts (on PostgreSQL, on another connection), so that one stalled transaction (a lock wait, a network stall)
   * cannot hold up every token request of the process. Its tokens may still be committed later, handed to nobody.
   */
  constructor(db: Db, deadlineMs: number) {
    this.#db = db;
    this.#deadlineMs = deadlineMs;
  }

  /** Resolves once the token's row is committed. */
  insert(row: AccessTokensTable): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ row, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writing = true;
    const batch = this.#waiting.splice(0, MAX_BATCH);
    let current = true;
    const next = () => {
      if (!current) return; // the deadline has already let the next group go
      current = false;
      this.#writing = false;
      if (this.#waiting.length > 0) this.#schedule();
    };
    const deadline = setTimeout(() => {
      for (const w of batch) w.reject(errors.serviceUnavailable());
      next();
    }, this.#deadlineMs);
    deadline.unref();
    try {
      await this.#insert(batch);
      for (const w of batch) w.resolve(); // a request the deadline has answered stays answered
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      // One request's row must not fail the others': each is tried again alone, and fails alone.
      else for (const w of batch) await this.#insert([w]).then(w.resolve, w.reject);
    } finally {
      clearTimeout(deadline);
      next();
    }
  }

  #insert(batch: readonly Waiting[]): Promise<void> {
    return this.#db.write((trx) =>
      authRepository.insertTokens(
        trx,
        batch.map((w) => w.row),
      ),
    );
  }
}
