import path from 'node:path';
import { type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { MIGRATIONS } from '../src/db/migrate.js';
import { ADMIN, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { contents, schemaOf } from './support/database-contents.js';
import { createTestDatabase } from './support/databases.js';
import { CODING_RULES, laterFrom, undoCodingRules } from './support/migrations.js';
import { ROOT, svc } from './support/processes.js';

const NAMES = Object.keys(MIGRATIONS);

/** `svc migrate` SIGKILLed right before it records its `nth` migration (test/support/kill-at-statement.mjs). */
const migrateKilledAt = (url: string, nth: number) =>
  svc(['migrate'], {
    DATABASE_URL: url,
    NODE_OPTIONS: `--import ${path.join(ROOT, 'test', 'support', 'kill-at-statement.mjs')}`,
    SVC_TEST_KILL_AT: 'insert into "kysely_migration"',
    SVC_TEST_KILL_AT_COUNT: String(nth),
  });

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
});
