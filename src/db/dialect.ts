import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { createRequire } from 'node:module';
import type PgModule from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { DatabaseTarget } from '../config.js';
import type { Database } from './database.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: DialectName;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** How long a statement may wait for another process's write lock before the request fails with 503. */
export const SQLITE_LOCK_WAIT_MS = 5000;
const LOCK_RETRY_MS = 10;

const isBusy = (error: unknown) => {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
};

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

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    if (this.#connection?.inner !== inner) this.#connection = new LockWaitingConnection(inner);
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    (connection as LockWaitingConnection).inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      (connection as LockWaitingConnection).inTransaction = false;
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      (connection as LockWaitingConnection).inTransaction = false;
    }
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/**
 * Kysely prepares every query afresh; preparing is the largest single cost of a small SQLite query. Keep the
 * most recently used statements (queries are built from a bounded set of shapes; `in (...)` lists of varying
 * length make more shapes, so the cache is bounded, least recently used first out).
 */
function withStatementCache(database: SqliteDatabase.Database, size = 1000) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteDatabase.Statement {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

function openSqlite(file: string): Db {
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
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(database) }),
  });
  return {
    kysely,
    dialect: 'sqlite',
    async ping() {
      // Between two requests' statements (the connection is held), read the file — a file gone bad fails
      // here — and take the write lock for a moment: another process holding it means writes cannot run.
      await kysely.connection().execute(async () => {
        database.prepare('select count(*) from sqlite_master').get();
        database.exec('begin immediate');
        database.exec('rollback');
      });
    },
    async close() {
      await kysely.destroy();
    },
  };
}

const INT8_OID = 20;

function openPostgres(url: string, poolSize: number): Db {
  // Loaded on first use: a SQLite service does not pay for the driver at start-up (40 ms).
  const pg = createRequire(import.meta.url)('pg') as typeof PgModule;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A request fails fast (503) when the database is down rather than hanging.
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // bigint columns hold microsecond times and counts well inside 2^53: read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  // A client in use when the server goes away emits 'error' too; unhandled, that would end the process. The
  // query it was running fails on its own (→ 503), and the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    async ping() {
      const client = await pool.connect();
      try {
        await client.query('select 1');
      } finally {
        client.release();
      }
    },
    async close() {
      await kysely.destroy();
    },
  };
}

export function openDatabase(target: DatabaseTarget, options: { poolSize?: number } = {}): Db {
  return target.dialect === 'sqlite' ? openSqlite(target.path) : openPostgres(target.url, options.poolSize ?? 10);
}

/** True when `error` is a unique or primary-key violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * True when `error` means the database cannot serve requests now (→ 503, retry later) rather than a bug in
 * the request (→ 500): the connection failed or was cut, the server is shutting down or full, the database
 * is gone; for SQLite, the file is locked, unreadable or not a database.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  const code = e.code ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) ||
    // PostgreSQL: class 08 connection exception, class 57P operator intervention (shutdown, database
    // dropped), 53300 too many connections, 3D000 the database does not exist (any more).
    /^(08...|57P0[1-4]|53300|3D000)$/.test(code) ||
    /^SQLITE_(BUSY|LOCKED|NOTADB|CORRUPT|CANTOPEN|IOERR|FULL)/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      e.message ?? '',
    )
  );
}
