import type SqliteDatabase from 'better-sqlite3';
import type { ChangeMark, RunEach } from '../db/database.js';
import { isSqliteBusy as isBusy } from '../db/failures.js';
import { isRecord } from '../lib/guards.js';
import { isOn } from './switches.js';

/** What this process's one SQLite connection is doing, shared by the driver (src/db/sqlite.ts) and the change mark. */
export interface ConnectionState {
  /** A transaction of this process is open on the connection (BEGIN IMMEDIATE … COMMIT/ROLLBACK). */
  inTransaction: boolean;
  /** Statements that write, run by this process (each counted as it is prepared to run): the change mark's half. */
  writes: number;
}

interface Statements {
  close(): void;
  prepare(sql: string): SqliteDatabase.Statement;
}

/**
 * What the driver prepares its statements with. Piece `statement-cache`: Kysely prepares every query afresh, and
 * preparing is the largest single cost of a small SQLite query, so the most recently used statements are kept
 * (queries come from a bounded set of shapes; `in (...)` lists of varying length make more, so the cache is bounded,
 * least recently used first out). Either way each run of a statement that writes is counted (the change mark).
 */
export function statementsOf(database: SqliteDatabase.Database, state: ConnectionState, size = 1000): Statements {
  const counted = (statement: SqliteDatabase.Statement) => {
    // Kysely prepares a statement right before it runs it: this counts the runs of those that write.
    if (!statement.readonly) state.writes++;
    return statement;
  };
  if (!isOn('statement-cache')) {
    return { close: () => database.close(), prepare: (sql) => counted(database.prepare(sql)) };
  }
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return counted(statement);
    },
  };
}

/**
 * The change mark of SQLite's `Db.direct` (database.ts, `ChangeMark`; the grant cache's): this process's count of
 * statements that write, and `PRAGMA data_version`, which moves with any commit by another connection or process.
 * Invariant: it is read only while no transaction of this process holds the connection (nor a COMMIT that failed,
 * until its ROLLBACK), so a mark is never taken in the middle of another request's transaction
 * (test/speed/reads-beside-transactions.test.ts); then, and when the database is locked (SQLITE_BUSY), there is no
 * mark (undefined) and the grant is read from the database, waiting for the transaction.
 */
export function changeMark(database: SqliteDatabase.Database, state: ConnectionState): ChangeMark {
  const dataVersion = database.prepare('pragma data_version');
  return () => {
    // SQLite's own word (autocommit off) as well as the driver's: a COMMIT that fails leaves the transaction open
    // until Kysely's ROLLBACK a few turns later, and the driver's flag is already down by then. (A mark read then
    // would be the one after the ROLLBACK, and a grant read then still waits for the connection: no mark is simply
    // the plainer rule.)
    if (state.inTransaction || database.inTransaction) return undefined;
    try {
      const row: unknown = dataVersion.get();
      return isRecord(row) ? `${state.writes}:${String(row.data_version)}` : undefined;
    } catch (error) {
      if (isBusy(error)) return undefined;
      throw error;
    }
  };
}

/**
 * `RunEach` of SQLite's write transactions (piece `prepared`, `preparedQuery(…).each`): the statement run for each list
 * of parameters straight on the connection the transaction holds (Kysely runs a transaction's statements one at a
 * time on it, and the caller awaits none meanwhile). Each run is taken from `statements` as the driver takes it, so
 * each is counted for the change mark. Undefined with the piece off: each run then goes through Kysely.
 */
export function runEachOf(statements: Statements): RunEach | undefined {
  if (!isOn('prepared')) return undefined;
  return (sql, parameterLists) => {
    let changes = 0;
    for (const parameters of parameterLists) changes += statements.prepare(sql).run(parameters).changes;
    return changes;
  };
}
