import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database, Db, Executor, WriteOptions } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { nowMicros } from '../../src/lib/clock.js';
import { deliveriesRepository } from '../../src/modules/webhooks/deliveries.repository.js';
import { deliveryCommit } from '../../src/speed/lazy-commit.js';
import { turnOff } from '../../src/speed/switches.js';
import { describeEachDialect } from '../support/context.js';

/** One connection (a pool of 1), so that a session's setting is the one every statement of `db` runs under. */
const node = (url: string): Db => openDatabase(loadConfig({ DATABASE_URL: url }).database, { poolSize: 1 });

/**
 * Whether PostgreSQL would JIT-compile the due-endpoints statement, as planned now on `ex`'s connection: the statement
 * named there (named statements are on by default on PostgreSQL: DATABASE_NAMED_STATEMENTS), explained.
 */
async function compiles(ex: Executor, now: number): Promise<boolean> {
  const { rows } = await sql<{ name: string }>`
    select name from pg_prepared_statements where statement like '%waiting_accounts(account_id)%'`.execute(ex);
  expect(rows).toHaveLength(1);
  const plan = await sql<{
    'QUERY PLAN': string;
  }>`explain execute ${sql.id(rows[0]!.name)}(${sql.lit(now)}, 8)`.execute(ex);
  return plan.rows.some((r) => r['QUERY PLAN'].startsWith('JIT:'));
}

/**
 * Webhook delivery's due endpoints on PostgreSQL (piece `hint-no-jit`, src/speed/hints.ts): a recursive query whose
 * estimates pass `jit_above_cost` once its tables hold a few thousand deliveries, and which runs in under a
 * millisecond. JIT compiled it for about 30 ms in every attempt's outcome (docs/performance.md, 2026-11-29). Here
 * `jit_above_cost` is 0, so that PostgreSQL would compile any plan of the statement: the dispatcher's transaction
 * runs it with JIT off, and only its own transaction.
 */
describeEachDialect(
  'JIT off for the due endpoints on PostgreSQL',
  (t) => {
    afterEach(() => turnOff(undefined));

    it("runs webhook delivery's due endpoints with JIT off in its transaction, where PostgreSQL would compile it", async () => {
      const db = node(t.ctx.database.url);
      try {
        const [available] = (await sql<{ on: boolean }>`select pg_jit_available() as on`.execute(db.direct)).rows;
        expect(available?.on, "this machine's PostgreSQL has LLVM JIT (Debian's postgresql-15 does)").toBe(true);
        // The session as a server with JIT on would plan it, whatever this server's own settings.
        await sql`set jit = on`.execute(db.direct);
        await sql`set jit_above_cost = 0`.execute(db.direct);
        const now = nowMicros();
        const setting = (ex: Executor) => sql<{ jit: string }>`show jit`.execute(ex).then((r) => r.rows[0]!.jit);
        const inside = await db.write(async (ex) => {
          await deliveriesRepository.dueEndpoints(ex, now, 8);
          return { jit: await setting(ex), compiles: await compiles(ex, now) };
        });
        expect(inside).toEqual({ jit: 'off', compiles: false });
        // `set local`: the connection's other transactions plan as the server is set (and would compile it).
        const after = await db.write(async (ex) => ({ jit: await setting(ex), compiles: await compiles(ex, now) }));
        expect(after).toEqual({ jit: 'on', compiles: true });
        // The piece off: the dispatcher's transaction would compile it.
        turnOff('hint-no-jit');
        const off = await db.write(async (ex) => {
          await deliveriesRepository.dueEndpoints(ex, now, 8);
          return { jit: await setting(ex), compiles: await compiles(ex, now) };
        });
        expect(off).toEqual({ jit: 'on', compiles: true });
      } finally {
        await db.close();
      }
    });

    it("opens the dispatcher's transactions with their settings in their BEGIN, and sends none before the due endpoints", async () => {
      // Every statement the pool's connection is sent, as pg is asked to send it (patched before it connects).
      const sent: string[] = [];
      const original = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const [first] = args;
        sent.push(typeof first === 'string' ? first : (first as { text: string }).text);
        return Reflect.apply(original, this, args) as unknown;
      } as typeof original;
      const db = node(t.ctx.database.url);
      try {
        await sql`set jit = on`.execute(db.direct);
        await sql`set jit_above_cost = 0`.execute(db.direct);
        const now = nowMicros();
        const show = async (ex: Executor) => {
          const { rows } = await sql<{ jit: string; sync: string }>`
            select current_setting('jit') as jit, current_setting('synchronous_commit') as sync`.execute(ex);
          return rows[0]!;
        };
        const inTransaction = async (options?: WriteOptions) => {
          sent.length = 0;
          const seen = await db.write(async (ex) => {
            await deliveriesRepository.dueEndpoints(ex, now, 8);
            return { ...(await show(ex)), compiles: await compiles(ex, now) };
          }, options);
          return { seen, sent: sent.filter((text) => !/pg_prepared_statements|^explain|current_setting/.test(text)) };
        };
        const due = expect.stringContaining('waiting_accounts(account_id)');

        // The dispatcher's claims and outcomes (both pieces on): BEGIN and both settings in one message.
        expect(await inTransaction(deliveryCommit())).toEqual({
          seen: { jit: 'off', sync: 'off', compiles: false },
          sent: ['begin; set local synchronous_commit = off; set local jit = off', due, 'commit'],
        });
        // Its settings were its own: the connection's next transaction runs as the server is set.
        expect((await inTransaction()).seen).toEqual({ jit: 'off', sync: 'on', compiles: false });
        expect(await db.write((ex) => show(ex))).toEqual({ jit: 'on', sync: 'on' });
        // A transaction opened without the setting: the hint says it before the statement, one round trip more.
        expect((await inTransaction()).sent).toEqual(['begin', 'set local jit = off', due, 'commit']);
        // JIT off alone (the piece lazy-commit off): durable, JIT off from the BEGIN.
        turnOff('lazy-commit');
        expect(await inTransaction(deliveryCommit())).toEqual({
          seen: { jit: 'off', sync: 'on', compiles: false },
          sent: ['begin; set local jit = off', due, 'commit'],
        });
        // Both pieces off: a plain transaction, JIT as the server is set. (Whether it compiles the statement is the
        // first test's: here its plan may be one the connection cached under JIT off.)
        turnOff('lazy-commit,hint-no-jit');
        const plain = await inTransaction(deliveryCommit());
        expect(plain.seen).toMatchObject({ jit: 'on', sync: 'on' });
        expect(plain.sent).toEqual(['begin', due, 'commit']);
        turnOff(undefined);

        // A transaction opened with its settings that fails is rolled back, its settings with it.
        sent.length = 0;
        await expect(
          db.write(async (ex) => {
            await sql`create table nj_rows (id text)`.execute(ex);
            throw new Error('refused');
          }, deliveryCommit()),
        ).rejects.toThrow('refused');
        expect(sent).toEqual([
          'begin; set local synchronous_commit = off; set local jit = off',
          'create table nj_rows (id text)',
          'rollback',
        ]);
        const { rows } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_tables where tablename = 'nj_rows'`.execute(db.direct);
        expect(rows[0]!.n).toBe(0);
        expect(await db.write((ex) => show(ex))).toEqual({ jit: 'on', sync: 'on' });

        // A COMMIT that fails (a deferred unique constraint, checked there) is passed on, and nothing is written.
        await sql`create table nj_unique (id text unique deferrable initially deferred)`.execute(db.direct);
        sent.length = 0;
        await expect(
          db.write(async (ex) => {
            await sql`insert into nj_unique (id) values ('a'), ('a')`.execute(ex);
          }, deliveryCommit()),
        ).rejects.toMatchObject({ code: '23505' });
        expect(sent).toEqual([
          'begin; set local synchronous_commit = off; set local jit = off',
          "insert into nj_unique (id) values ('a'), ('a')",
          'commit',
          'rollback',
        ]);
        const kept = await sql<{ n: number }>`select count(*)::int as n from nj_unique`.execute(db.direct);
        expect(kept.rows[0]!.n).toBe(0);
        expect(await db.write((ex) => show(ex))).toEqual({ jit: 'on', sync: 'on' });
        // Nor can the work open a transaction of its own inside it (its COMMIT would end this one early).
        await expect(db.write(async (ex) => ex.transaction(), deliveryCommit())).rejects.toThrow('inside a write');
      } finally {
        pg.Client.prototype.query = original;
        await sql`drop table if exists nj_unique`.execute(db.direct);
        await db.close();
      }
    });

    it('plans the due endpoints it runs with JIT off: the very run, as auto_explain tells it', async () => {
      // A pool of one connection whose notices are kept: auto_explain sends each statement's plan as one.
      const notices: string[] = [];
      const pool = new pg.Pool({ connectionString: t.ctx.database.url, max: 1 });
      pool.on('connect', (client) => client.on('notice', (notice) => notices.push(notice.message ?? '')));
      const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      try {
        for (const setting of [
          sql`load 'auto_explain'`,
          sql`set auto_explain.log_min_duration = 0`,
          sql`set auto_explain.log_level = notice`,
          sql`set jit = on`,
          sql`set jit_above_cost = 0`,
        ]) {
          await setting.execute(kysely);
        }
        const planOfRun = async () => {
          notices.length = 0;
          await kysely
            .transaction()
            .execute((trx) =>
              deliveriesRepository.dueEndpoints(Object.assign(trx, { dialect: 'postgres' as const }), nowMicros(), 8),
            );
          const plans = notices.filter((n) => n.includes('waiting_accounts(account_id)'));
          expect(plans).toHaveLength(1);
          return plans[0]!;
        };
        expect(await planOfRun()).not.toMatch(/^\s*JIT:/m);
        turnOff('hint-no-jit');
        expect(await planOfRun()).toMatch(/^\s*JIT:/m);
      } finally {
        await kysely.destroy();
      }
    });
  },
  {},
  { only: 'postgres' },
);
