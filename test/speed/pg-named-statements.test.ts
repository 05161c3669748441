import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db, Executor } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { nowMicros } from '../../src/lib/clock.js';
import { deliveriesRepository } from '../../src/modules/webhooks/deliveries.repository.js';
import { pgNamed } from '../../src/speed/postgres-named.js';
import { preparedQuery } from '../../src/speed/prepared.js';
import { describeEachDialect } from '../support/context.js';

/** The named statements of the connection `ex` runs on (PostgreSQL keeps them per session). */
async function namedOn(ex: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string; statement: string }>`
    select name, statement from pg_prepared_statements where name like 'svc%' order by name`.execute(ex);
  return rows.map((r) => `${r.name}: ${r.statement.replace(/\s+/g, ' ').trim().slice(0, 40)}`);
}

const marked = (ex: Executor, accountId: string) =>
  sql<{ svc_id: string; name: string }>`
    select svc_id, name from fields where account_id = ${accountId} order by svc_id${pgNamed}`.execute(ex);
const unmarked = (ex: Executor, accountId: string) =>
  sql<{ svc_id: string; name: string }>`
    select svc_id, name from fields where account_id = ${accountId} order by svc_id`.execute(ex);

/** Runs `work` while `fields` has a column more, as a migration of another process would add it meanwhile. */
async function withColumnAdded(db: Db, work: () => Promise<void>): Promise<void> {
  await db.write((ex) => sql`alter table fields add column added_meanwhile text`.execute(ex));
  try {
    await work();
  } finally {
    await db.write((ex) => sql`alter table fields drop column added_meanwhile`.execute(ex));
  }
}

/** A database opened as a node opens it, with the environment given beside DATABASE_URL. */
function node(url: string, env: Record<string, string> = {}): Db {
  return openDatabase(loadConfig({ DATABASE_URL: url, ...env }).database, { poolSize: 1 });
}

/**
 * Named statements on PostgreSQL (piece `pg-named-statements`, src/speed/postgres-named.ts): a statement whose text
 * ends with `pgNamed` is kept named on its connection, planned once, and answers what it answers unnamed; any other
 * statement is not kept; a prepared query is marked unless it answers `*`, whose columns a migration may change under
 * a named statement. Not with DATABASE_NAMED_STATEMENTS=false, nor by default when DATABASE_URL goes through a
 * pooler (DATABASE_LISTEN_URL set): there each transaction may run on another server connection.
 */
describeEachDialect(
  'named statements on PostgreSQL',
  (t) => {
    it('keeps a marked statement named on its connection, answering as the same statement unnamed', async () => {
      const api = await t.ctx.as(['fields.write']);
      for (const name of ['GL', 'Class', "O'Brien \u00e9"]) await api.newField({ name });
      const db = node(t.ctx.database.url);
      try {
        await db.write(async (ex) => {
          expect(await namedOn(ex)).toEqual([]);
          const expected = (await unmarked(ex, api.accountId)).rows;
          expect(expected).toHaveLength(3);
          expect(await namedOn(ex)).toEqual([]);
          // Twice: the second run binds the statement the first prepared (a second Parse of the name would fail).
          for (let run = 0; run < 2; run++) expect((await marked(ex, api.accountId)).rows).toEqual(expected);
          expect((await marked(ex, 'another account')).rows).toEqual([]);
          const named = await namedOn(ex);
          expect(named).toHaveLength(1);
          expect(named[0]).toMatch(/^svc_[0-9a-f]{24}: select svc_id, name from fields/);
        });
        // The pool's one connection keeps it beyond the transaction, and outside one.
        expect(await db.write(namedOn)).toHaveLength(1);
        expect((await marked(db.direct, api.accountId)).rows).toHaveLength(3);
      } finally {
        await db.close();
      }
    });

    // Its answers with deliveries due are the webhook suites' (the test context names its statements too).
    it("names webhook delivery's statement of due endpoints", async () => {
      const db = node(t.ctx.database.url);
      const unnamed = node(t.ctx.database.url, { DATABASE_NAMED_STATEMENTS: 'false' });
      try {
        const at = nowMicros();
        const due = await db.write(async (ex) => {
          const rows = await deliveriesRepository.dueEndpoints(ex, at, 8);
          expect(await namedOn(ex)).toEqual([expect.stringMatching(/^svc_[0-9a-f]{24}: with recursive/)]);
          return rows;
        });
        expect(due).toEqual(await unnamed.write((ex) => deliveriesRepository.dueEndpoints(ex, at, 8)));
        expect(await unnamed.write(namedOn)).toEqual([]);
      } finally {
        await db.close();
        await unnamed.close();
      }
    });

    it('names the prepared queries of constant columns, not those that answer *, and both survive a column added meanwhile', async () => {
      const api = await t.ctx.as(['fields.write']);
      await api.newField({ name: 'GL' });
      const named = preparedQuery<{ accountId: string }>()((ex, p) =>
        ex.selectFrom('fields').select(['svc_id', 'name']).where('account_id', '=', p('accountId')),
      );
      const everything = preparedQuery<{ accountId: string }>()((ex, p) =>
        ex.selectFrom('fields').selectAll().where('account_id', '=', p('accountId')),
      );
      const db = node(t.ctx.database.url);
      try {
        const run = (ex: Executor) =>
          Promise.all([named(ex, { accountId: api.accountId }), everything(ex, { accountId: api.accountId })]);
        const [before] = await db.write(async (ex) => {
          const answers = await run(ex);
          expect(await namedOn(ex)).toEqual([expect.stringMatching(/^svc_[0-9a-f]{24}: select "svc_id", "name" from/)]);
          return answers;
        });
        expect(before.rows).toEqual([{ svc_id: expect.any(String), name: 'GL' }]);
        // A migration of another process adds a column: the named statement is planned again and answers the same;
        // the one that answers * (never named) answers the new column too.
        await withColumnAdded(t.ctx.db, async () => {
          const [after, all] = await db.write(run);
          expect(after.rows).toEqual(before.rows);
          expect(all.rows[0]).toHaveProperty('added_meanwhile', null);
        });
      } finally {
        await db.close();
      }
    });

    it('prepares a statement anew once a migration changed its result under it, failing only the run that found it', async () => {
      const api = await t.ctx.as(['fields.write']);
      await api.newField({ name: 'GL' });
      // A marked statement of * (prepared queries never mark one: this is the failure that rule keeps away).
      const all = (ex: Executor) =>
        sql<Record<string, unknown>>`select * from fields where account_id = ${api.accountId}${pgNamed}`.execute(ex);
      const db = node(t.ctx.database.url);
      try {
        expect((await db.write(all)).rows[0]).not.toHaveProperty('added_meanwhile');
        await withColumnAdded(t.ctx.db, async () => {
          await expect(db.write(all)).rejects.toMatchObject({ code: '0A000' });
          expect((await db.write(all)).rows[0]).toHaveProperty('added_meanwhile', null);
          expect(await db.write(namedOn)).toHaveLength(2);
        });
      } finally {
        await db.close();
      }
    });

    it('names nothing more once a server connection does not know a name (a pooler between), and runs on', async () => {
      const api = await t.ctx.as(['fields.write']);
      await api.newField({ name: 'GL' });
      const db = node(t.ctx.database.url);
      try {
        expect((await marked(db.direct, api.accountId)).rows).toHaveLength(1);
        // What a PgBouncer in transaction mode does to a name: the next server connection has never seen it.
        await db.write((ex) => sql`deallocate all`.execute(ex));
        await expect(marked(db.direct, api.accountId)).rejects.toMatchObject({ code: '26000' });
        for (let run = 0; run < 3; run++) expect((await marked(db.direct, api.accountId)).rows).toHaveLength(1);
        expect(await db.write(async (ex) => (await marked(ex, api.accountId)).rows)).toHaveLength(1);
        expect(await db.write(namedOn)).toEqual([]);
      } finally {
        await db.close();
      }
    });

    it('names nothing with DATABASE_NAMED_STATEMENTS=false, nor by default behind a pooler', async () => {
      const api = await t.ctx.as(['fields.write']);
      await api.newField({ name: 'GL' });
      const url = t.ctx.database.url;
      const envs: Record<string, string>[] = [{ DATABASE_NAMED_STATEMENTS: 'false' }, { DATABASE_LISTEN_URL: url }];
      for (const env of envs) {
        const db = node(url, env);
        try {
          await db.write(async (ex) => {
            expect((await marked(ex, api.accountId)).rows).toHaveLength(1);
            expect(await namedOn(ex)).toEqual([]);
          });
        } finally {
          await db.close();
        }
      }
    });
  },
  {},
  { only: 'postgres' },
);
