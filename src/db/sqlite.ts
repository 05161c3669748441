import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import { changeMark, runEachOf, statementsOf, type ConnectionState } from '../speed/sqlite-connection.js';
import { dbOver, type Database, type Db } from './database.js';
import { isSqliteBusy as isBusy } from './failures.js';

/** How long a statement may wait for another process's write lock before the request fails with 503. */
export const SQLITE_LOCK_WAIT_MS = 5000;
const LOCK_RETRY_MS = 10;

/**
 * Waits for a lock held by another process without blocking the event loop. better-sqlite3 is synchronous,
 * so SQLite's own busy_timeout would freeze the whole process (health checks included) while it waits;
 * instead busy_timeout is 0 and a statement that finds the database locked is retried on a timer. Only
 * statements that cannot have done anything are retried: those outside a transaction (each is atomic) and
 * the BEGIN IMMEDIATE that opens one. Inside a transaction the write lock is already held.
 */
class LockWaitingConnection implements DatabaseConnection {
  inTransaction = false;
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = Date.now() + SQLITE_LOCK_WAIT_MS;
    for (;;) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (!isBusy(error) || this.inTransaction || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * SQLite write transactions start with BEGIN IMMEDIATE: the write lock is taken at the start, so two
 * processes never deadlock upgrading a read lock, and a transaction never fails half-way for want of it.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  #connection: LockWaitingConnection | undefined;
  readonly #parts: ConnectionParts;

  constructor(config: ConstructorParameters<typeof SqliteDriver>[0], parts: ConnectionParts) {
    super(config);
    this.#parts = parts;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    if (this.#connection?.inner !== inner) this.#connection = new LockWaitingConnection(inner);
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    this.#parts.sync.settle();
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    this.#marked(connection, true);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      this.#marked(connection, false);
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      // SQLite may have ended the transaction itself (it rolls the whole of it back on some errors: SQLITE_FULL,
      // SQLITE_IOERR, SQLITE_NOMEM). A ROLLBACK then fails ("no transaction is active"), and its error would replace
      // the one that ended the transaction (a full disk answered 500 instead of 507).
      if (this.#parts.open()) await super.rollbackTransaction(connection);
    } finally {
      this.#marked(connection, false);
    }
  }

  #marked(connection: DatabaseConnection, inTransaction: boolean): void {
    if (connection instanceof LockWaitingConnection) connection.inTransaction = inTransaction;
    this.#parts.state.inTransaction = inTransaction;
  }
}

/**
 * What the connection's commits wait for: `synchronous = FULL` (each commit syncs the WAL), NORMAL only while a write
 * that asked not to wait holds the connection (`lazy`: `Db.write`'s `durable: false`). `settle` sets what is wanted
 * when it is not what is set: before every BEGIN, so that even if putting FULL back after a lazy write failed (SQLite
 * refuses it while a transaction is still open), no durable write commits under NORMAL; and as a lazy write ends, so
 * that statements outside a transaction commit under FULL. A failure to set it there is left for the next BEGIN.
 */
interface CommitSync {
  lazy: boolean;
  settle(): void;
}

/** What the driver shares with the rest of the connection's machinery. */
interface ConnectionParts {
  state: ConnectionState;
  /** Whether the connection has a transaction open (SQLite's own word, better-sqlite3's `inTransaction`). */
  open: () => boolean;
  sync: CommitSync;
}

function commitSync(database: SqliteDatabase.Database): CommitSync {
  let normal = false;
  const sync: CommitSync = {
    lazy: false,
    settle() {
      if (normal === sync.lazy || !database.open) return;
      try {
        database.pragma(sync.lazy ? 'synchronous = NORMAL' : 'synchronous = FULL');
        normal = sync.lazy;
      } catch {
        // Inside a transaction still open (a failed ROLLBACK): the next BEGIN sets it, before anything commits.
      }
    },
  };
  return sync;
}

/**
 * SQLite's DDL is transactional, but Kysely's SqliteAdapter says it is not, so Kysely's Migrator ran each statement
 * of a migration on its own and recorded the migration after it: two `svc migrate` on one new file both ran
 * 0001 ("table accounts already exists"), and a process killed mid-way left a migration half applied or applied
 * and unrecorded. Saying so, the Migrator runs all pending migrations and their records in one transaction
 * (BEGIN IMMEDIATE here: a second migrator waits for the first, then finds its work done), as on PostgreSQL.
 * Nothing else of svc reads this flag. runMigrations (db/migrate.ts) turns foreign keys off around it.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  readonly #parts: ConnectionParts;
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0], parts: ConnectionParts) {
    super(config);
    this.#config = config;
    this.#parts = parts;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#parts);
  }
  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

export function openSqlite(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  // FULL: a committed transaction survives a power cut, not only a process crash.
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // Checkpoint the WAL every 10,000 pages (40 MB) rather than 1000: a page changed by many transactions is
  // copied into the database once per checkpoint, and batch writes changed the same index pages again and again.
  database.pragma('wal_autocheckpoint = 10000');
  // 0: never wait inside SQLite (that would block the event loop); LockWaitingConnection waits instead.
  database.pragma('busy_timeout = 0');
  const state: ConnectionState = { inTransaction: false, writes: 0 };
  // The speed machinery of SQLite's connection (src/speed/): the statement cache and the change mark.
  const statements = statementsOf(database, state);
  const sync = commitSync(database);
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: statements }, { state, open: () => database.inTransaction, sync }),
  });
  return dbOver(kysely, 'sqlite', {
    changeMark: changeMark(database, state),
    runEach: runEachOf(statements),
    // A commit that need not wait for the disk: SQLite reads `synchronous` at COMMIT and refuses to change it inside
    // a transaction, so NORMAL (the WAL written, not synced) around this one transaction, on the connection held for
    // it alone, then FULL again. The WAL is synced in order, so the next FULL commit or checkpoint makes this one
    // durable too. (`jit`: SQLite compiles nothing.)
    opened: (k, options, { open }) =>
      options.durable !== false
        ? open(k)
        : k.connection().execute(async (connection) => {
            sync.lazy = true;
            try {
              return await open(connection);
            } finally {
              sync.lazy = false;
              sync.settle();
            }
          }),
    // One connection: holding it keeps this process's writers out between the reads.
    read: (k, work) => k.connection().execute(work),
    async ping() {
      // Between two requests' statements (the connection is held), read the file — a file gone bad fails
      // here — and take the write lock for a moment: another process holding it means writes cannot run.
      await kysely.connection().execute(async () => {
        database.prepare('select count(*) from sqlite_master').get();
        database.exec('begin immediate');
        database.exec('rollback');
      });
    },
  });
}
