import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { isOn, onSwitches } from './switches.js';

/**
 * SQL planner hints: parts of a statement that change its plan and never its answer. SQLite has no statistics
 * unless ANALYZE runs (and sampled statistics chose worse plans in our tests), so a statement over many rows is
 * written so that its plan does not depend on them; these are the parts that are there for the planner alone.
 * Invariant: with a hint or without it, the statement answers the same rows (the suites that run these statements
 * pass with each hint off: `SVC_SPEED_OFF=hint-…`; test/speed/hints.test.ts holds the two forms' answers equal).
 */
export interface Hints {
  /**
   * `and <column> in (<keys>)` beside a join on that column (piece `hint-key-probe`): SQLite then probes the primary
   * key once per key, where without it, lacking statistics, it scanned a whole range through another index.
   */
  probeEachKey(column: string, keys: readonly unknown[]): RawBuilder<unknown>;
  /**
   * The join between two FROM items (piece `hint-join-order`): `cross join`, which SQLite never reorders, so that the
   * few keys written first drive the join (a primary-key probe each); PostgreSQL reads it as the inner join it is.
   * Off: a comma, and the planner orders the join.
   */
  joinInWrittenOrder: RawBuilder<unknown>;
  /**
   * PostgreSQL (piece `hint-no-jit`): JIT compilation off for the rest of the transaction, before a statement whose
   * estimates are large and whose run is short. Webhook delivery's due endpoints is a recursive query: PostgreSQL
   * guesses ten times the rows for each recursion, so once its tables have statistics of a few thousand deliveries
   * its cost passes `jit_above_cost` (100,000 by default) and every run compiled for about 30 ms a query that runs
   * in under 1 ms, in every attempt's outcome (measured 2026-11-29: docs/performance.md). One round trip more, unless
   * the transaction was opened with JIT off (`WriteOptions.jit` false: the dispatcher's, src/speed/lazy-commit.ts).
   */
  noJit(ex: Executor): Promise<void>;
}

const none = sql``;

export const hints: Hints = {
  probeEachKey: () => none,
  joinInWrittenOrder: none,
  noJit: async () => {},
};

onSwitches(() => {
  hints.probeEachKey = isOn('hint-key-probe')
    ? (column, keys) => sql`and ${sql.ref(column)} in (${sql.join(keys)})`
    : () => none;
  hints.joinInWrittenOrder = isOn('hint-join-order') ? sql`cross join` : sql`,`;
  hints.noJit = isOn('hint-no-jit')
    ? async (ex) => {
        if (ex.dialect === 'postgres' && ex.opened?.jit !== false) await sql`set local jit = off`.execute(ex);
      }
    : async () => {};
});
