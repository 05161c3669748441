import { spawn } from 'node:child_process';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { type Kysely } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { MIGRATIONS } from '../src/db/migrate.js';
import { ADMIN, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { contents, schemaOf } from './support/database-contents.js';
import { createTestDatabase } from './support/databases.js';
import { CODING_RULES, laterFrom, undoCodingRules } from './support/migrations.js';
import { childEnv, collect, ROOT, svc } from './support/processes.js';
import { until } from './support/wait.js';

const NAMES = Object.keys(MIGRATIONS);

/** `svc migrate` SIGKILLed right before it records its `nth` migration (test/support/kill-at-statement.mjs). */
const migrateKilledAt = (url: string, nth: number) =>
  svc(['migrate'], {
    DATABASE_URL: url,
    NODE_OPTIONS: `--import ${path.join(ROOT, 'test', 'support', 'kill-at-statement.mjs')}`,
    SVC_TEST_KILL_AT: 'insert into "kysely_migration"',
    SVC_TEST_KILL_AT_COUNT: String(nth),
  });

/** Kysely's migration lock on PostgreSQL: a session-level advisory lock on this key (postgres-adapter.js). */
const PG_MIGRATION_LOCK = '3853314791062309107';

/** Another process's hold on what a migration run takes: SQLite's write lock, PostgreSQL's migration lock. */
async function heldBy(url: string): Promise<{ release(): Promise<void> }> {
  if (url.startsWith('sqlite:')) {
    const other = new SqliteDatabase(url.slice('sqlite:'.length));
    other.pragma('journal_mode = WAL');
    other.exec('begin immediate');
    return {
      async release() {
        if (other.open) other.exec('rollback');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  await other.query(`select pg_advisory_lock(${PG_MIGRATION_LOCK})`);
  let ended = false;
  return {
    async release() {
      if (!ended) await other.end();
      ended = true;
    },
  };
}

/**
 * `svc migrate` runs every pending migration and its record in one transaction on both dialects (db/migrate.ts,
 * runMigrations). On SQLite it did not: Kysely ran each statement on its own and recorded a migration after it, so
 * two at once both ran 0001 ("table accounts already exists") and a kill left a migration half applied.
 */
describeEachDialect('svc migrate: all or nothing', (t) => {
  it('four at once on a new database: one runs every migration, the others wait and find none pending', async () => {
    const fresh = await createTestDatabase(t.dialect);
    try {
      const runs = await Promise.all([1, 2, 3, 4].map(() => svc(['migrate'], { DATABASE_URL: fresh.url })));
      expect(runs.map((r) => [r.code, r.stderr])).toEqual(
        runs.map(() => [0, expect.stringMatching(/^svc: database /)]),
      );
      const applied = runs.map((r) => JSON.parse(r.stdout).applied as string[]).sort((a, b) => a.length - b.length);
      expect(applied).toEqual([[], [], [], NAMES]);
      expect((await contents(fresh.url)).migrations).toEqual(NAMES);
    } finally {
      await fresh.drop();
    }
  });

  it('killed on a new database after two migrations of its run: nothing applied; the next run applies all', async () => {
    const fresh = await createTestDatabase(t.dialect);
    try {
      const killed = await migrateKilledAt(fresh.url, 3);
      expect([killed.code, killed.signal, killed.stdout]).toEqual([null, 'SIGKILL', '']);
      // What Kysely's migrator makes before its transaction: its own two tables, empty.
      const left = await contents(fresh.url);
      expect(left).toEqual({ migrations: [], rows: {} });
      const ran = await svc(['migrate'], { DATABASE_URL: fresh.url });
      expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: NAMES }]);
    } finally {
      await fresh.drop();
    }
  });

  it('killed upgrading a database that holds records: schema and rows as they were; the next run upgrades it', async () => {
    const api = await t.ctx.as([...ADMIN]);
    await api.newRecords([{}, {}, { type: 'BILL_EXPENSE' }]);
    const page = (await api.get(RECORDS, { limit: '10' })).text;
    // Back to the schema of 0018 with the records in it; the later migrations rewrite and index them.
    await undoCodingRules(t.ctx.db.direct as Kysely<any>);
    const later = laterFrom(CODING_RULES);
    const url = t.ctx.database.url;
    const before = { schema: await schemaOf(url), contents: await contents(url) };

    for (const nth of [1, 4, later.length]) {
      const killed = await migrateKilledAt(url, nth);
      expect([nth, killed.code, killed.signal]).toEqual([nth, null, 'SIGKILL']);
      expect({ schema: await schemaOf(url), contents: await contents(url) }).toEqual(before);
    }

    const ran = await svc(['migrate'], { DATABASE_URL: url });
    expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: later }]);
    expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
  });

  it("with nothing pending, svc commands run while another process holds the migrations' lock", async () => {
    const url = t.ctx.database.url;
    const held = await heldBy(url);
    try {
      // Every svc command migrates first; on an up-to-date database that is a read, not the migrator's lock.
      const listed = await svc(['clients', 'list'], { DATABASE_URL: url });
      expect([listed.code, listed.stderr]).toEqual([0, expect.stringMatching(/^svc: database [^\n]*\n$/)]);
      const ran = await svc(['migrate'], { DATABASE_URL: url });
      expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: [] }]);
    } finally {
      await held.release();
    }
  });

  if (t.dialect === 'sqlite') {
    it('upgrades a database that broke a foreign key before the run (foreign keys off in a sqlite3 shell)', async () => {
      const url = t.ctx.database.url;
      await undoCodingRules(t.ctx.db.direct as Kysely<any>);
      const shell = new SqliteDatabase(url.slice('sqlite:'.length));
      try {
        shell.pragma('foreign_keys = off');
        shell
          .prepare('insert into account_user_settings (account_id, mfa_required, updated_at) values (?, 0, 0)')
          .run('no_such_account');
      } finally {
        shell.close();
      }
      // Each migration is checked for keys it breaks, not for the one the database broke before.
      const ran = await svc(['migrate'], { DATABASE_URL: url });
      expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: laterFrom(CODING_RULES) }]);
    });

    it("waits, saying so, while another process holds the write lock past the connection's own wait; then runs", async () => {
      const fresh = await createTestDatabase('sqlite');
      const held = await heldBy(fresh.url);
      try {
        const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'svc.js'), 'migrate'], {
          cwd: ROOT,
          env: childEnv({ DATABASE_URL: fresh.url }),
        });
        const exited = collect(child);
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        await until('the notice that svc migrate waits', () => stderr.includes('svc: waiting for the database'));
        await held.release();
        const ran = await exited;
        expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: NAMES }]);
        expect(ran.stderr.match(/svc: waiting/g)).toHaveLength(1);
      } finally {
        await fresh.drop();
      }
    });
  }
});
