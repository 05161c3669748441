import { sql, type RawBuilder } from 'kysely';
import pg, { type Client } from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { ADMIN } from './accounting.js';
import { startCluster, type ClusterServer } from './cluster.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { eachDialectNeeding } from './dialects.js';
import { PgBouncer, pgbouncerInstalled } from './pgbouncer.js';
import { svc } from './processes.js';
import { fetchToken, HttpApi } from './reliability.js';
import { CEILING_MS, until } from './wait.js';

/** Server connections PgBouncer keeps for the database. */
export const POOL = 4;
/** The test's own connections to PostgreSQL, told apart from PgBouncer's in pg_stat_activity. */
const DIRECT = 'svc-pgbouncer-test';
/** The application name of the nodes' grant listeners, which connect directly (DATABASE_LISTEN_URL). */
export const LISTENER = 'svc-grant-listener';

/** Kills a node as a machine dies: its primary and its workers, SIGKILL, all at once. */
export function killNode(node: ClusterServer): Promise<unknown> {
  node.child.kill('SIGKILL');
  for (const pid of node.workerPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return node.exited;
}

/** What a suite of describeBouncer sees: the bouncer, the database behind it, and the nodes once started. */
export interface BouncedNodes {
  readonly bouncer: PgBouncer;
  readonly db: Db;
  /** The database's name, as PgBouncer serves it. */
  readonly name: string;
  /** The two nodes, once `startNodes()` has run (a test that kills one takes it out). */
  nodes: ClusterServer[];
  /** Starts the two nodes through PgBouncer (WORKERS=2 each) on the migrated database. */
  startNodes(): Promise<void>;
  /** A client of `accountId` with a token from the first node, and the same client on each node. */
  clients(accountId: string, scopes?: readonly Scope[]): Promise<HttpApi[]>;
  /** A direct connection of the test's own (not through PgBouncer). */
  directClient(): Promise<Client>;
  /** PostgreSQL backends of the database other than the test's and the listeners': PgBouncer's server connections. */
  serverBackends(): Promise<number>;
  /** Backends of the database waiting for a lock. */
  lockWaiters(): Promise<number>;
  /** Advisory locks held in the database: Idempotency-Key claims (and the migrator's lock). */
  advisoryLocks(): Promise<number>;
  until(what: string, check: () => Promise<boolean>, ms?: number): Promise<void>;
}

const eachDialectThroughBouncer = eachDialectNeeding('PgBouncer', pgbouncerInstalled);

/**
 * PgBouncer in transaction mode, as docs/operations.md describes it: `svc migrate` on a direct connection, then two
 * svc nodes (`node dist/server.js`, WORKERS=2 each) whose DATABASE_URL goes through one PgBouncer
 * (test/support/pgbouncer.ts) with POOL server connections for the database, so that every transaction of the four
 * workers runs on a server connection other transactions used before it. What is stored is read directly.
 * PostgreSQL only; the bouncer, the database and the nodes are stopped and dropped after the suite.
 */
export function describeBouncer(name: string, suite: (b: BouncedNodes) => void): void {
  eachDialectThroughBouncer(name, () => suite(bouncedNodes()), { only: 'postgres' });
}

function bouncedNodes(): BouncedNodes {
  let bouncer: PgBouncer | undefined;
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  let name = '';
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('describeBouncer: not started yet (use it inside a test or hook)');
    return value;
  };
  const count = async (query: RawBuilder<{ n: string | number }>) =>
    Number((await query.execute(opened(db).direct)).rows[0]!.n);

  const b: BouncedNodes = {
    get bouncer() {
      return opened(bouncer);
    },
    get db() {
      return opened(db);
    },
    get name() {
      return name;
    },
    nodes: [],
    async startNodes() {
      // The grant cache's listener on a direct connection (docs/operations.md): LISTEN hears nothing through PgBouncer.
      const listen = new URL(opened(database).url);
      listen.searchParams.set('application_name', LISTENER);
      const env = {
        DATABASE_URL: opened(bouncer).url(name),
        DATABASE_LISTEN_URL: listen.toString(),
        WORKERS: '2',
        RATE_LIMIT_MAX: '0',
      };
      b.nodes = await Promise.all([startCluster(env), startCluster(env)]);
    },
    async clients(accountId, scopes = [...ADMIN, 'accounting.record.read']) {
      const creds = await authService.createClient(opened(db), accountId, [...scopes]);
      const token = await fetchToken(b.nodes[0]!.url, creds);
      return b.nodes.map((n) => new HttpApi(n.url, token, creds.account_id, creds.client_id));
    },
    async directClient() {
      const client = new pg.Client({ connectionString: opened(database).url, application_name: DIRECT });
      await client.connect();
      return client;
    },
    serverBackends: () =>
      count(sql`select count(*) as n from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend'
          and application_name not in (${DIRECT}, ${LISTENER})`),
    lockWaiters: () =>
      count(sql`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`),
    advisoryLocks: () =>
      count(sql`select count(*) as n from pg_locks l join pg_database d on d.oid = l.database
        where d.datname = current_database() and l.locktype = 'advisory' and l.granted`),
    async until(what, check, ms = CEILING_MS) {
      await until(what, check, { ceilingMs: ms, everyMs: 10 });
    },
  };

  beforeAll(async () => {
    bouncer = await PgBouncer.start({ poolSize: POOL });
    database = await createTestDatabase('postgres');
    name = new URL(database.url).pathname.slice(1);
    // Migrations over the direct connection, as the operator runs them (never through transaction mode).
    const migrated = await svc(['migrate'], { DATABASE_URL: database.url });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toEqual({ applied: Object.keys(MIGRATIONS) });
    const url = new URL(database.url);
    url.searchParams.set('application_name', DIRECT);
    db = openDatabase(loadConfig({ DATABASE_URL: url.toString() }).database, { poolSize: 3 });
  });
  afterAll(async () => {
    await Promise.all(b.nodes.map((n) => killNode(n)));
    await db?.close().catch(() => {});
    await bouncer?.stop();
    await database?.drop();
  });
  return b;
}
