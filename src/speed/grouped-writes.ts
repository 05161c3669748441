import { sql } from 'kysely';
import type { Db, Executor } from '../db/database.js';
import { isOn } from './switches.js';

interface Waiting {
  /** The caller's work; what it answers hands its value to the caller (once committed). */
  work: (ex: Executor) => Promise<() => void>;
  reject(error: unknown): void;
}

const settle = (hand: () => void) => hand();

/** A `Db.write` whose transactions, asked for at the same time, may share one commit. */
export interface GroupedWrites {
  write<T>(work: (ex: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs the step that leads to a `write` (an upload's bytes made durable): a group that starts waiting while it
   * runs waits for it to end (its write then joins the group), not for steps started later.
   */
  before<T>(step: () => Promise<T>): Promise<T>;
}

/**
 * Grouped transactions (piece `grouped-writes`; issue 32's receipt attaches, and webhook outcomes with the piece
 * `grouped-outcomes` off): a write's commit costs one WAL fsync (SQLite `synchronous = FULL`, on the event loop;
 * PostgreSQL's flush), often more than the work. Transactions asked for while another group commits run next as savepoints of one transaction, one
 * commit for all of them. Invariants
 * (test/speed/grouped-writes.test.ts, both dialects):
 * - each caller is answered with its value only once the group's commit is done: the same durability, the fsync
 *   shared;
 * - a work that throws is rolled back to its own savepoint (the others' work stays): nothing of it is written. Its
 *   caller gets its error at once when no peer's work was done before it in the group (the error rests on
 *   committed state alone); otherwise once the group has committed, since the error may rest on a peer's work
 *   (a receipt the peer attached): so an answer is only ever given on committed state;
 * - when the group's commit fails, each work whose value or error was waiting is run again in a transaction of its
 *   own, so a caller fails only for its own work, and is refused only for what is committed.
 * A work must be one that may run again (it is: a rolled-back transaction left nothing) and must not commit or roll
 * back itself. A write starts on the next turn of the event loop (requests that arrived in the same turn join it),
 * once every `before` step under way when the first of them arrived has ended (those writes join it: the wait is
 * an event, a local write ending, never a timer) or `maxBatch` are waiting; a work alone runs in a transaction of
 * its own, as `Db.write`. `concurrency` groups may be committing at once (SQLite: 1, its one connection). A work's
 * locks are held until its group commits: with concurrent groups (PostgreSQL) works taking row locks in opposite
 * orders deadlock, so receipts group on SQLite only. When the group's transaction itself fails (BEGIN, a savepoint
 * statement, the commit), every work not answered yet is run again alone: no caller is left without an answer.
 */
export function groupedWrites(db: Db, options: { maxBatch: number; concurrency: number }): GroupedWrites {
  if (!isOn('grouped-writes')) return ungrouped(db);
  const waiting: Waiting[] = [];
  let running = 0;
  let scheduled = false;
  /** The `before` steps under way, by the order they started in. */
  const steps = new Set<number>();
  let lastStep = 0;
  /** The steps the waiting writes wait for: those started before the first of them arrived. */
  let waitFor = 0;
  const stepsAwaited = () => [...steps].some((n) => n <= waitFor);

  const schedule = () => {
    if (scheduled || running >= options.concurrency || waiting.length === 0) return;
    if (waiting.length < options.maxBatch && stepsAwaited()) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (running < options.concurrency && waiting.length > 0) {
        running++;
        const batch = waiting.splice(0, options.maxBatch);
        waitFor = lastStep;
        void flush(batch).finally(() => {
          running--;
          schedule();
        });
      }
    });
  };

  async function flush(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      for (const only of batch) await db.write(only.work).then(settle, only.reject);
      return;
    }
    const done: { w: Waiting; hand: () => void }[] = [];
    /** Works whose caller has its answer already (its own error, rolled back to its savepoint). */
    const refused = new Set<Waiting>();
    /** Works that threw after a peer's work was done: their error may rest on that work, not committed yet. */
    const held: { w: Waiting; error: unknown }[] = [];
    try {
      await db.write(async (ex) => {
        for (const w of batch) {
          await sql`savepoint grouped_write`.execute(ex);
          try {
            const hand = await w.work(ex);
            await sql`release savepoint grouped_write`.execute(ex);
            done.push({ w, hand });
          } catch (error) {
            await sql`rollback to savepoint grouped_write`.execute(ex);
            await sql`release savepoint grouped_write`.execute(ex);
            if (done.length > 0) {
              held.push({ w, error });
            } else {
              // Nothing of a peer is written yet: the error rests on committed state alone.
              refused.add(w);
              w.reject(error);
            }
          }
        }
      });
    } catch {
      // The group's transaction failed (its BEGIN, a savepoint statement, a rollback SQLite made by itself, the
      // commit): nothing of it is written. Every work not answered yet — done, held, under way, or not reached —
      // is tried again alone, and its caller gets that transaction's answer (a 503 when the database is busy),
      // never none; a held refusal is judged again on what is committed (a peer's attach that never committed no
      // longer refuses it).
      for (const w of batch) if (!refused.has(w)) await db.write(w.work).then(settle, w.reject);
      return;
    }
    for (const { hand } of done) hand();
    for (const { w, error } of held) w.reject(error);
  }

  return {
    write<T>(work: (ex: Executor) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (waiting.length === 0) waitFor = lastStep;
        waiting.push({
          work: async (ex) => {
            const value = await work(ex);
            return () => resolve(value);
          },
          reject,
        });
        schedule();
      });
    },

    async before<T>(step: () => Promise<T>): Promise<T> {
      const n = ++lastStep;
      steps.add(n);
      try {
        return await step();
      } finally {
        steps.delete(n);
        schedule();
      }
    },
  };
}

/** Each write a transaction of its own (`Db.write`), with nothing to wait for: the piece off, or not wanted. */
export function ungrouped(db: Db): GroupedWrites {
  return { write: (work) => db.write(work), before: (step) => step() };
}
