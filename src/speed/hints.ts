import { sql, type RawBuilder } from 'kysely';
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
}

const none = sql``;

export const hints: Hints = {
  probeEachKey: () => none,
  joinInWrittenOrder: none,
};

onSwitches(() => {
  hints.probeEachKey = isOn('hint-key-probe')
    ? (column, keys) => sql`and ${sql.ref(column)} in (${sql.join(keys)})`
    : () => none;
  hints.joinInWrittenOrder = isOn('hint-join-order') ? sql`cross join` : sql`,`;
});
