import SqliteDatabase from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import type { Db, DialectName } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { ApiClient, parseBody, type Method, type RequestOptions, type Response } from './api.js';
import { newAccountId } from './context.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { eachDialectWith, type DialectFilter } from './dialects.js';
import { startServer, type RunningServer } from './processes.js';
import { problemsIn } from './reliability-state.js';

export type HttpResponse<T = any> = Response<T> & {
  /** Milliseconds from sending to the whole answer. */
  ms: number;
};

export interface HttpOptions extends RequestOptions {
  /** Sent as is (not JSON-encoded): garbage bodies. */
  raw?: string | Buffer;
  timeoutMs?: number;
}

/** A client of a real listening server, over real HTTP, with a real token. */
export class HttpApi extends ApiClient<{ ms: number }> {
  constructor(
    public base: string,
    token: string | null,
    accountId: string,
    clientId: string,
  ) {
    super(token, accountId, clientId);
  }

  async request<T = any>(method: Method, path: string, options: HttpOptions = {}): Promise<HttpResponse<T>> {
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v);
    }
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token && headers.authorization === undefined) headers.authorization = `Bearer ${this.token}`;
    let payload: string | Buffer | undefined = options.raw;
    if (payload === undefined && options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const started = performance.now();
    const res = await fetch(url, {
      method,
      headers,
      body: payload as BodyInit | undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      body: parseBody(text),
      text,
      ms: performance.now() - started,
    };
  }
}

/** A token for `creds` from the server's token endpoint. */
export async function fetchToken(base: string, creds: { client_id: string; client_secret: string }): Promise<string> {
  const res = await fetch(new URL('/oauth2/token', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    }),
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * A fresh, migrated database of `dialect` that the test inspects directly, and servers (`node dist/server.js`)
 * spawned over it; everything is stopped and dropped by `close()`.
 */
export class ServedDatabase {
  readonly servers = new Set<RunningServer>();
  private probe: SqliteDatabase.Database | undefined;
  private constructor(
    readonly dialect: DialectName,
    readonly database: TestDatabase,
    readonly db: Db,
  ) {}

  static async create(dialect: DialectName): Promise<ServedDatabase> {
    const database = await createTestDatabase(dialect, { migrated: true });
    const db = openDatabase(loadConfig({ DATABASE_URL: database.url }).database, { poolSize: 3 });
    await migrateToLatest(db);
    return new ServedDatabase(dialect, database, db);
  }

  async start(env: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startServer({ DATABASE_URL: this.database.url, RATE_LIMIT_MAX: '0', ...env });
    this.servers.add(server);
    void server.exited.then(() => this.servers.delete(server));
    return server;
  }

  /** A new client (of a new account unless given) with a token from `base`. */
  async client(base: string, scopes: readonly Scope[], accountId = newAccountId()): Promise<HttpApi> {
    const creds = await authService.createClient(this.db, accountId, [...scopes]);
    return new HttpApi(base, await fetchToken(base, creds), creds.account_id, creds.client_id);
  }

  /**
   * True while some server holds a write transaction open on the database. SQLite: the write lock is taken
   * (a BEGIN IMMEDIATE of our own fails at once). PostgreSQL: a client backend of the database has been in a
   * transaction for over 10 ms (one-statement transactions are left out).
   */
  async writing(): Promise<boolean> {
    const target = loadConfig({ DATABASE_URL: this.database.url }).database;
    if (target.dialect === 'sqlite') {
      this.probe ??= new SqliteDatabase(target.path, { timeout: 0 });
      try {
        this.probe.exec('begin immediate');
        this.probe.exec('rollback');
        return false;
      } catch (error) {
        if (error instanceof SqliteDatabase.SqliteError && error.code.startsWith('SQLITE_BUSY')) return true;
        throw error;
      }
    }
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
        and xact_start < clock_timestamp() - interval '10 milliseconds'`.execute(this.db.direct);
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /** Resolves once a write transaction has been open for a while (seen twice, 15 ms apart); false after `ms`. */
  async writeUnderWay(ms = 10_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await this.writing()) {
        await sleep(15);
        if (await this.writing()) return true;
      }
      await sleep(2);
    }
    return false;
  }

  async stopServers(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const running = [...this.servers];
    for (const server of running) server.child.kill(signal);
    await Promise.all(running.map((s) => s.exited));
  }

  async close(): Promise<void> {
    await this.stopServers();
    this.probe?.close();
    await this.db.close().catch(() => {});
    await this.database.drop();
  }
}

/**
 * Runs `suite` once per dialect in DIALECTS (or for `filter.only`) with a fresh ServedDatabase, created before the
 * suite's tests and stopped and dropped after them.
 */
export function describeServed(
  name: string,
  suite: (t: { readonly served: ServedDatabase; readonly dialect: DialectName }) => void,
  filter: DialectFilter = {},
): void {
  eachDialectWith(
    name,
    (dialect) => ServedDatabase.create(dialect),
    (current, dialect) =>
      suite({
        get served() {
          return current();
        },
        dialect,
      }),
    filter,
  );
}

/**
 * Problems with the stored state that no sequence of requests may leave behind; [] when sound. SQLite: the
 * file's own checks. Both: values of a field that does not exist, unbalanced ledgers, a record clock behind
 * its records, versions below 1, a DONE idempotency key without its answer.
 */
export async function integrityProblems(db: Db): Promise<string[]> {
  // From one snapshot: on PostgreSQL a killed server's last COMMIT may still land while the checks read.
  return db.read((k) => problemsIn(k));
}

/** "200", "200 replayed", "409 IDEMPOTENCY_KEY_IN_USE": how many answers of each. */
export function tally(responses: HttpResponse[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of responses) {
    const label = `${r.status}${r.body?.error_code ? ` ${r.body.error_code}` : ''}${r.headers['idempotent-replayed'] ? ' replayed' : ''}`;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

/** Figures a test reached, printed as one `[reliability]` line per test for docs/reliability.md. */
export function report(name: string, figures: Record<string, number | string>): void {
  const text = Object.entries(figures)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(`[reliability] ${name}: ${text}\n`);
}

export { sleep };
