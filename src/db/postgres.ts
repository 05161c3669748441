import { createRequire } from 'node:module';
import type PgModule from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { listenForGrants, pgChangeMark, watchStatements, type PgMarkState } from '../speed/postgres-marks.js';
import { nameStatements } from '../speed/postgres-named.js';
import { pgDirectReads } from '../speed/postgres-reads.js';
import { isOn } from '../speed/switches.js';
import { listenOn } from './postgres-listen.js';
import { dbOver, type Database, type Db, type WriteOptions } from './database.js';

const INT8_OID = 20;

/**
 * What a write's options change in its transaction, for it alone (`set local`: through PgBouncer's transaction pooling
 * too).
 */
const settingsOf = (options: WriteOptions): string[] => [
  ...(options.durable === false ? ['set local synchronous_commit = off'] : []),
  ...(options.jit === false ? ['set local jit = off'] : []),
];

/** What a write transaction's work is given for `transaction()`: none opens inside it (as in Kysely's Transaction). */
const nested = (): never => {
  throw new Error('a transaction cannot be opened inside a write transaction');
};

/**
 * A write transaction whose settings travel with its BEGIN: one simple-protocol message (`begin; set local …`), one
 * round trip, where Kysely's BEGIN and then each setting would take one each. Held on one connection and ended here:
 * COMMIT after the work; on any failure (of the message, where a setting refused leaves the transaction open and
 * aborted; of the work; of COMMIT) a ROLLBACK, whose own failure (a connection gone, no transaction left) changes
 * nothing, and the first failure passed on. As in a Kysely transaction, the work cannot open another (`nested`).
 */
async function withSettings<T>(
  k: Kysely<Database>,
  settings: readonly string[],
  within: (on: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return k.connection().execute(async (connection) => {
    try {
      await sql.raw(['begin', ...settings].join('; ')).execute(connection);
      const result = await within(Object.assign(connection, { transaction: nested }));
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

/**
 * `listenUrl`: where the grant cache's listener connects (DATABASE_LISTEN_URL), else `url`. `namedStatements`: the hot
 * statements marked `pgNamed` are named on each connection (DATABASE_NAMED_STATEMENTS; src/speed/postgres-named.ts).
 */
export function openPostgres(url: string, poolSize: number, listenUrl = url, namedStatements = false): Db {
  // Loaded on first use: a SQLite service does not pay for the driver at start-up.
  const pg: typeof PgModule = createRequire(import.meta.url)('pg');
  const textParser = pg.types.getTypeParser.bind(pg.types);
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // A request fails fast (503) when the database is down rather than hanging.
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    // bigint columns hold microsecond times and counts well inside 2^53: read them as numbers.
    types: {
      getTypeParser: (oid: number) => (oid === INT8_OID ? (value: string) => Number(value) : textParser(oid, 'text')),
    },
  });
  // An idle client that loses its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  // A client in use when the server goes away emits 'error' too; unhandled, that would end the process. The
  // query it was running fails on its own (→ 503), and the pool drops the client.
  // Each client's statements are watched for the grant cache's change mark and its notifications (src/speed/).
  const marks: PgMarkState = { generation: 0, listening: false };
  const naming = { on: namedStatements && isOn('pg-named-statements') };
  pool.on('connect', (client) => {
    client.on('error', () => {});
    watchStatements(client, marks);
    if (naming.on) nameStatements(client, naming);
  });
  let listener: { close(): Promise<void> } | undefined;
  const listeners = new Set<{ close(): Promise<void> }>();
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return dbOver(kysely, 'postgres', {
    directRead: pgDirectReads(pool),
    changeMark: pgChangeMark(marks, () => {
      listener = listenForGrants(pg, listenUrl, marks);
    }),
    listen(channel, notified) {
      // Heard, lost and back alike: what was sent while it did not listen is looked for once it does.
      const opened = listenOn(pg, listenUrl, channel, { notified, listening: notified, lost: notified });
      const handle = {
        async close() {
          listeners.delete(handle);
          await opened.close();
        },
      };
      listeners.add(handle);
      return handle;
    },
    close: async () => {
      await listener?.close();
      await Promise.all([...listeners].map((l) => l.close()));
    },
    read: (k, work) => k.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work),
    opened: (k, options, { within }) => withSettings(k, settingsOf(options), within),
    async ping() {
      const client = await pool.connect();
      try {
        await client.query('select 1');
      } finally {
        client.release();
      }
    },
  });
}
