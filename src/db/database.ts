import type { Kysely } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Every table of the service. Empty here: each module adds its own tables from its `<module>.tables.ts` (a
 * `declare module` block merges them into this interface), so that db/ depends on no module. Times are
 * integer microseconds since the epoch; booleans are 0/1 integers in both dialects.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Database {}

/**
 * What repositories run statements on: an open transaction, or the database outside one (`Db.direct`). It knows
 * its dialect, so that a repository picks its SQLite or PostgreSQL statement (`ByDialect`) without asking Kysely.
 */
export type Executor = Kysely<Database> & {
  readonly dialect: DialectName;
  readonly changeMark?: ChangeMark;
  readonly directRead?: DirectRead;
  readonly runEach?: RunEach;
  /**
   * Write transactions only: runs `then` once the transaction has committed (never when it rolls back), so that what
   * it tells others of (webhook events: events.bell.ts) can be read by then. Work rolled back to a savepoint of a
   * transaction that commits (grouped writes, an idempotent request undone) still has its `then` run: use it for
   * hints, which a spare run costs only a look. `then` runs before the write's own answer and must not throw. Not
   * there outside a write transaction, where each statement commits as it ends.
   */
  readonly afterCommit?: (then: () => void) => void;
  /** Write transactions only: the options the transaction was opened with (a hint need not set again what it holds). */
  readonly opened?: WriteOptions;
};

/**
 * SQLite's write transactions only (piece `prepared`): one compiled statement that writes, run once for each list of
 * parameters on the transaction's connection, synchronously, without Kysely's hand-over per run; answers the rows
 * changed in all. Made by src/speed/, used by prepared queries alone (`preparedQuery(…).each`).
 */
export type RunEach = (sql: string, parameterLists: readonly (readonly unknown[])[]) => number;

/**
 * PostgreSQL's `Db.direct` only (piece `pg-direct-reads`): a compiled SELECT run on the pool at once, without Kysely's
 * connection hand-over; answers the rows as Kysely would. Made by src/speed/, used by prepared queries alone.
 */
export type DirectRead = <R>(sql: string, parameters: readonly unknown[]) => Promise<{ rows: R[] }>;

/**
 * `Db.direct`'s mark that changes whenever a grant in the database may have changed — SQLite: a statement that writes
 * run by this process, or a commit by another connection or process (SQLite's `data_version`), undefined while a
 * transaction of this process holds the connection; PostgreSQL: a statement of this node that may write, a
 * notification of a grant's change, or the next second, undefined while nothing listens. Made and used by the speed
 * machinery alone (src/speed/: sqlite-connection.ts and postgres-marks.ts make it, the grant cache reads it).
 */
export type ChangeMark = () => string | undefined;

/** How a write transaction runs (`Db.write`'s second argument): whether its commit waits for the disk, and JIT. */
export interface WriteOptions {
  /**
   * `false`: the commit answers before its changes are on the disk (SQLite: `synchronous = NORMAL` for its commit,
   * no fsync; PostgreSQL: `synchronous_commit = off`). A power cut or a crash of the machine that holds the database
   * (SQLite's file; PostgreSQL's server, or a crash of that server) may then lose it, and the others committed this
   * way just before it; nothing else: the database stays consistent, a crash of svc's own process loses nothing, and
   * the next durable commit makes it durable too (both dialects' logs are synced in order). Only for writes that are
   * done again when lost: webhook deliveries' claims and outcomes (at least once: a lost outcome is a delivery sent
   * again, with the same id). Default `true`.
   */
  durable?: boolean;
  /**
   * `false`: PostgreSQL compiles none of the transaction's statements (`jit = off` for it alone): for transactions of
   * short statements whose estimates are large (webhook delivery's due endpoints, a recursive query:
   * src/speed/hints.ts). SQLite compiles nothing: no effect there. Default: the server's setting.
   */
  jit?: boolean;
}

/**
 * How `Db.write` runs its work, handed to the dialect for a write opened with options (`WriteOptions`): `open` opens a
 * Kysely transaction on `on` (the database, or one of its connections) and runs the work in it; `within` runs the work
 * on `on`, a connection whose transaction the dialect opens and ends itself (its BEGIN carrying the settings).
 */
interface WriteWays<T> {
  open(on: Kysely<Database>): Promise<T>;
  within(on: Kysely<Database>): Promise<T>;
}

/** One implementation per dialect of a statement the two cannot share. */
export type ByDialect<F> = { readonly [D in DialectName]: F };

/**
 * The database: it knows its dialect and opens every transaction of the service.
 * - `direct`: statements outside a transaction, each atomic on its own (one-statement reads and writes).
 * - `read(work)`: several reads from one snapshot (PostgreSQL: repeatable read, read only; SQLite: the
 *   connection is held, so this process's writers wait).
 * - `write(work, options)`: one write transaction (SQLite: BEGIN IMMEDIATE, the write lock from the start); durable
 *   when it answers unless `options.durable` is false (`WriteOptions`).
 */
export interface Db {
  readonly dialect: DialectName;
  readonly direct: Executor;
  read<T>(work: (ex: Executor) => Promise<T>): Promise<T>;
  write<T>(work: (ex: Executor) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** Resolves when the database answers (SQLite: the file reads and the write lock can be taken). */
  ping(): Promise<void>;
  /**
   * PostgreSQL: a connection of its own LISTENing on `channel` (db/postgres-listen.ts); `notified` runs for each
   * notification, and whenever the connection is lost or comes back (what was sent meanwhile was not heard).
   * SQLite has none.
   */
  listen?(channel: string, notified: () => void): { close(): Promise<void> };
  close(): Promise<void>;
}

/** The façade over a Kysely instance: one place where transactions are opened and handed their dialect. */
export function dbOver(
  kysely: Kysely<Database>,
  dialect: DialectName,
  parts: {
    read<T>(kysely: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
    ping(): Promise<void>;
    changeMark?: ChangeMark;
    directRead?: DirectRead;
    /** Given to write transactions' executors (SQLite). */
    runEach?: RunEach;
    /**
     * A write transaction opened with options (`WriteOptions`: a commit that need not wait for the disk, no JIT): the
     * dialect runs it (`ways`) with its settings changed for it alone.
     */
    opened<T>(kysely: Kysely<Database>, options: WriteOptions, ways: WriteWays<T>): Promise<T>;
    listen?: Db['listen'];
    /** Closes what the dialect opened beside Kysely's pool (PostgreSQL's listener), before the pool. */
    close?(): Promise<void>;
  },
): Db {
  const know = (handle: Kysely<Database>): Executor => Object.assign(handle, { dialect });
  return {
    dialect,
    direct: Object.assign(kysely, { dialect, changeMark: parts.changeMark, directRead: parts.directRead }),
    read: (work) => parts.read(kysely, (trx) => work(know(trx))),
    async write(work, options) {
      const committed: (() => void)[] = [];
      const afterCommit = (then: () => void) => void committed.push(then);
      const within = (on: Kysely<Database>) =>
        work(Object.assign(on, { dialect, runEach: parts.runEach, afterCommit, opened: options }));
      const open = (on: Kysely<Database>) => on.transaction().execute(within);
      const plain = options === undefined || (options.durable !== false && options.jit !== false);
      const result = plain ? await open(kysely) : await parts.opened(kysely, options, { open, within });
      for (const then of committed) then();
      return result;
    },
    ping: () => parts.ping(),
    listen: parts.listen,
    close: async () => {
      await parts.close?.();
      await kysely.destroy();
    },
  };
}
