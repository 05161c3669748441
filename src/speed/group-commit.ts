import type { Db, Executor } from '../db/database.js';
import { errors } from '../errors.js';
import { isOn } from './switches.js';

interface Waiting<Row> {
  row: Row;
  resolve(): void;
  reject(error: unknown): void;
}

/** Rows written in one transaction, each durable before its caller is answered. */
export interface GroupCommit<Row> {
  /** Resolves once the row is committed. */
  insert(row: Row): Promise<void>;
}

/**
 * Group commit (piece `group-commit`; issue 16): each row must be durable before its request is answered, and a
 * commit costs one WAL fsync (SQLite `synchronous = FULL`, PostgreSQL's `fsync`). Rows asked for at the same time
 * are written in one transaction instead, one commit for all of them. Invariants (test/speed/group-commit.test.ts,
 * both dialects):
 * - each request is answered only once its row's commit is done: the same durability, the fsync shared;
 * - when a group's transaction fails, each of its rows is tried again in a transaction of its own, so a request
 *   fails only for its own row (with its own error: a 503 when the database is away);
 * - a group waits for its commit no longer than `deadlineMs`: past it its requests are answered 503 and the next
 *   group starts (on PostgreSQL, on another connection), so one stalled transaction (a lock wait, a network stall)
 *   cannot hold up every request of the process; its rows may still be committed later, handed to nobody.
 *
 * A write starts on the next turn of the event loop (`setImmediate`, after the requests that arrived in the same
 * turn have added theirs), and rows asked for while it commits go in the next one: a request alone waits one turn,
 * not a timer. `maxBatch` keeps a group's statement within both dialects' bound-parameter limits.
 */
export function groupCommit<Row>(
  db: Db,
  write: (ex: Executor, rows: readonly Row[]) => Promise<void>,
  options: { deadlineMs: number; maxBatch: number },
): GroupCommit<Row> {
  if (!isOn('group-commit')) return { insert: (row) => db.write((ex) => write(ex, [row])) };
  return new Groups(db, write, options.deadlineMs, options.maxBatch);
}

class Groups<Row> implements GroupCommit<Row> {
  #waiting: Waiting<Row>[] = [];
  #scheduled = false;
  #writing = false;

  constructor(
    readonly db: Db,
    readonly write: (ex: Executor, rows: readonly Row[]) => Promise<void>,
    readonly deadlineMs: number,
    readonly maxBatch: number,
  ) {}

  insert(row: Row): Promise<void> {
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
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    const batch = this.#waiting.splice(0, this.maxBatch);
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
    }, this.deadlineMs);
    deadline.unref();
    try {
      await this.#commit(batch);
      for (const w of batch) w.resolve(); // a request the deadline has answered stays answered
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      // One request's row must not fail the others': each is tried again alone, and fails alone.
      else for (const w of batch) await this.#commit([w]).then(w.resolve, w.reject);
    } finally {
      clearTimeout(deadline);
      next();
    }
  }

  #commit(batch: readonly Waiting<Row>[]): Promise<void> {
    return this.db.write((ex) =>
      this.write(
        ex,
        batch.map((w) => w.row),
      ),
    );
  }
}
