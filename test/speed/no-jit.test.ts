import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database, Db, Executor } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { nowMicros } from '../../src/lib/clock.js';
import { deliveriesRepository } from '../../src/modules/webhooks/deliveries.repository.js';
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
