import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './cluster.js';
import { PG_URL } from './dialects.js';
import { collect, type Exited } from './processes.js';
import { CEILING_MS } from './wait.js';
import { setTimeout as sleep } from 'node:timers/promises';

const run = promisify(execFile);

/** Debian's package `pgbouncer` (.ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

export const pgbouncerInstalled = (): boolean => spawnSync(PGBOUNCER, ['--version']).status === 0;

/** A row of PgBouncer's `SHOW POOLS` (the counts as numbers). */
export interface PoolRow {
  database: string;
  user: string;
  cl_active: number;
  cl_waiting: number;
  sv_active: number;
  sv_idle: number;
  sv_used: number;
  sv_tested: number;
  sv_login: number;
  pool_mode: string;
}

/**
 * A PgBouncer of the test's own (foreground child process, its own port, config and auth file in a temporary
 * directory) in front of the shared PostgreSQL of TEST_POSTGRES_URL: every database of that server is reachable
 * through it under its own name, in `pool_mode = transaction` with `poolSize` server connections per database
 * (a hard cap: `max_db_connections`), whatever the number of client connections. Clients log in without a
 * password (`auth_type = trust`); PgBouncer logs in to the server as TEST_POSTGRES_URL's user. As root it runs
 * as the postgres user (PgBouncer refuses root; `-u` switches user after reading the config).
 */
export class PgBouncer {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly user: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<Exited>,
    private readonly log: () => string,
  ) {}

  static async start(options: { poolSize: number }): Promise<PgBouncer> {
    const target = new URL(PG_URL);
    const user = decodeURIComponent(target.username || 'postgres');
    const password = decodeURIComponent(target.password);
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pgbouncer-'));
    const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
    // With trust, PgBouncer asks clients for nothing but still wants the user listed; the password listed is the
    // one it logs in to the server with.
    fs.writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`);
    const settings = {
      listen_addr: '127.0.0.1',
      listen_port: port,
      // No Unix socket: nothing of this PgBouncer outside its port and its directory.
      unix_socket_dir: '',
      logfile: '',
      pidfile: '',
      auth_type: 'trust',
      auth_file: path.join(dir, 'userlist.txt'),
      admin_users: user,
      pool_mode: 'transaction',
      default_pool_size: options.poolSize,
      reserve_pool_size: 0,
      min_pool_size: 0,
      max_db_connections: options.poolSize,
      max_client_conn: 500,
      // A client that waits longer than this for a server connection is cut: a pool that no longer moves fails
      // the test within its time rather than after PgBouncer's default of two minutes.
      query_wait_timeout: 30,
    };
    const ini = [
      '[databases]',
      // Any database name a client asks for, on the test's server.
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n');
    const config = path.join(dir, 'pgbouncer.ini');
    fs.writeFileSync(config, ini);
    const root = process.getuid?.() === 0;
    if (root) await run('chown', ['-R', 'postgres', dir]);
    const child = spawn(PGBOUNCER, [...(root ? ['-u', 'postgres'] : []), config], { stdio: 'pipe' });
    const exited = collect(child);
    let log = '';
    // Logged to stderr (no logfile); stdout too, in case a build logs there.
    child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    let ended: Exited | null = null;
    void exited.then((e) => (ended = e));
    const bouncer = new PgBouncer(port, dir, user, child, exited, () => log);
    const deadline = Date.now() + CEILING_MS;
    while (!/process up/.test(log)) {
      if (ended !== null || Date.now() > deadline) {
        await bouncer.stop();
        throw new Error(`pgbouncer did not start: ${log}`);
      }
      await sleep(20);
    }
    return bouncer;
  }

  /** DATABASE_URL of `database` through this PgBouncer. */
  url(database: string): string {
    return `postgres://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/${database}`;
  }

  /** PgBouncer's log so far. */
  output(): string {
    return this.log();
  }

  /** The pool of `database` in PgBouncer's admin console (`SHOW POOLS`). */
  async pool(database: string): Promise<PoolRow | undefined> {
    const admin = new pg.Client({ connectionString: this.url('pgbouncer') });
    await admin.connect();
    try {
      // The admin console speaks the simple query protocol only: a query without parameters.
      const { rows } = await admin.query<Record<string, string>>('SHOW POOLS');
      const row = rows.find((r) => r.database === database && r.user === this.user);
      if (!row) return undefined;
      const count = (name: string) => Number(row[name] ?? 0);
      return {
        database: row.database!,
        user: row.user!,
        cl_active: count('cl_active'),
        cl_waiting: count('cl_waiting'),
        sv_active: count('sv_active'),
        sv_idle: count('sv_idle'),
        sv_used: count('sv_used'),
        sv_tested: count('sv_tested'),
        sv_login: count('sv_login'),
        pool_mode: row.pool_mode!,
      };
    } finally {
      await admin.end();
    }
  }

  /** Stops PgBouncer (SIGTERM, its immediate shutdown; SIGKILL after 5 s) and removes its directory. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const killer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited.catch(() => {});
      clearTimeout(killer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
