import type SqliteDatabase from 'better-sqlite3';
import type { DirectReads } from '../db/database.js';
import { isSqliteBusy as isBusy } from '../db/failures.js';
import { isRecord } from '../lib/guards.js';
import { isOn } from './switches.js';

/** What this process's one SQLite connection is doing, shared by the driver (src/db/sqlite.ts) and the pieces here. */
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
 * `Db.direct`'s reads at once (database.ts, DirectReads). Invariant: they run only while no transaction of this
 * process is open on the connection, so a read never lands inside another request's transaction
 * (test/speed/reads-beside-transactions.test.ts); a locked database (SQLITE_BUSY, rare for a read in WAL mode)
 * answers undefined and the read takes the usual way, which waits for the lock. Piece `direct-reads` off: `rows`
 * always answers undefined (every read takes Kysely's way); the change mark stays (it is the grant cache's).
 */
export function directReads(
  database: SqliteDatabase.Database,
  state: ConnectionState,
  statements: { prepare(sql: string): SqliteDatabase.Statement },
): DirectReads {
  const dataVersion = database.prepare('pragma data_version');
  const attempt = <T>(read: () => T): T | undefined => {
    // SQLite's own word (autocommit off) as well as the driver's: a COMMIT that fails leaves the transaction open
    // until Kysely's ROLLBACK a few turns later, and the driver's flag is already down by then.
    if (state.inTransaction || database.inTransaction) return undefined;
    try {
      return read();
    } catch (error) {
      if (isBusy(error)) return undefined;
      throw error;
    }
  };
  const rows: DirectReads['rows'] = (sql, parameters) =>
    attempt(() => {
      const statement = statements.prepare(sql);
      return statement.reader && statement.readonly ? statement.all(parameters) : undefined;
    });
  return {
    rows: isOn('direct-reads') ? rows : () => undefined,
    changeMark() {
      return attempt(() => {
        const row: unknown = dataVersion.get();
        return isRecord(row) ? `${state.writes}:${String(row.data_version)}` : undefined;
      });
    },
  };
}
