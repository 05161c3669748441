import type { Db, Executor, WriteOptions } from '../db/database.js';

/**
 * Writes that end together written as one group (piece `grouped-outcomes`: webhook attempts' outcomes,
 * webhooks.attempt.ts): the items asked for while other groups are being written run next, together, in one
 * transaction: every item by `settleAll` (one statement where the dialect allows), then each one's `freed`, then
 * each one's `then` (for webhook outcomes, the dispatcher's claims: the first claims for every place the group freed,
 * the others find nothing left to hand out). Unlike `grouped-writes` there is no savepoint per item: the group's
 * statements are set-based, and a group succeeds or fails whole. Invariants (test/webhooks.outcome-groups.test.ts,
 * both dialects):
 * - an item is answered only once its group has committed;
 * - when the group's transaction fails (any statement of it, or its commit), nothing of it is written, and each
 *   item is written again in a transaction of its own (`settleAll` of it alone, then its `then`): a caller fails
 *   only for its own item, and never goes unanswered.
 * A group starts on the next turn of the event loop (items that arrived in the same turn join it), at most
 * `maxBatch` items, `concurrency` groups at a time; an item alone is a group of one.
 */
export interface StatementGroups<E> {
  /**
   * Writes `ended`'s outcome, then runs `then` in the same transaction; `freed` (when given) runs before any `then`
   * of the group. Answers what `then` answered, once committed.
   */
  write<T>(ended: E, then: (ex: Executor) => Promise<T>, freed?: () => void): Promise<T>;
}

export interface StatementGroupOptions<E> {
  /** Every outcome of a group, written in `ex` (one statement where the dialect allows). */
  settleAll(ex: Executor, ended: readonly E[]): Promise<void>;
  maxBatch: number;
  concurrency: number;
  /** How each group's transaction commits (`Db.write`'s options; durable unless told). */
  commit?: WriteOptions;
  /** Told when a group's transaction failed (before its outcomes are written again alone). */
  failed?(error: unknown, size: number): void;
}

interface Waiting<E> {
  ended: E;
  freed?: () => void;
  /** The caller's `then`; what it answers is handed to the caller once committed. */
  then(ex: Executor): Promise<() => void>;
  reject(error: unknown): void;
}

export function statementGroups<E>(db: Db, options: StatementGroupOptions<E>): StatementGroups<E> {
  const waiting: Waiting<E>[] = [];
  let running = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || running >= options.concurrency || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (running < options.concurrency && waiting.length > 0) {
        running++;
        void flush(waiting.splice(0, options.maxBatch)).finally(() => {
          running--;
          schedule();
        });
      }
    });
  };

  const alone = (w: Waiting<E>) =>
    db
      .write(async (ex) => {
        await options.settleAll(ex, [w.ended]);
        return w.then(ex);
      }, options.commit)
      .then((hand) => hand(), w.reject);

  async function flush(batch: Waiting<E>[]): Promise<void> {
    if (batch.length === 1) return alone(batch[0]!);
    let hands: (() => void)[];
    try {
      hands = await db.write(async (ex) => {
        await options.settleAll(
          ex,
          batch.map((w) => w.ended),
        );
        for (const w of batch) w.freed?.();
        const answered: (() => void)[] = [];
        for (const w of batch) answered.push(await w.then(ex));
        return answered;
      }, options.commit);
    } catch (error) {
      // Nothing of the group is written: each outcome again, alone, and its caller gets that transaction's answer.
      // (A commit whose answer was lost on the way, committed after all, makes each of them fail on its attempt's
      // key: the callers are refused, and what the group claimed comes due again when its lease runs out, as with
      // an outcome written alone.)
      options.failed?.(error, batch.length);
      for (const w of batch) await alone(w);
      return;
    }
    for (const hand of hands) hand();
  }

  return {
    write<T>(ended: E, then: (ex: Executor) => Promise<T>, freed?: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({
          ended,
          freed,
          then: async (ex) => {
            const value = await then(ex);
            return () => resolve(value);
          },
          reject,
        });
        schedule();
      });
    },
  };
}
