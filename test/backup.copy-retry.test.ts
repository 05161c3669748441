import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { MIGRATIONS, runMigrations } from '../src/db/migrate.js';
import { tablesOf } from '../src/modules/backup/backup.copy.js';
import { describeDatabase } from '../src/cli/database-name.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { eachDialect } from './support/dialects.js';
import { svc } from './support/processes.js';
import { contents, onDatabase } from './support/database-contents.js';

const targetOf = (url: string) => loadConfig({ DATABASE_URL: url }).database;

function fileOf(url: string): string {
  const target = targetOf(url);
  if (target.dialect !== 'sqlite') throw new Error(`${url} names no SQLite file`);
  return target.path;
}

/** svc's tables up to `migration`, without a row. */
const migratedTo = (url: string, migration: string) =>
  onDatabase(url, async (db) => {
    expect((await runMigrations(db, (migrator) => migrator.migrateTo(migration))).error).toBeUndefined();
  });

async function seeded(records: string): Promise<TestDatabase> {
  const source = await createTestDatabase('sqlite');
  const account = `retry_${Date.now().toString(36)}`;
  const seed = await svc(['seed', '--account', account, '--records', records, '--values', '10'], {
    DATABASE_URL: source.url,
  });
  expect(seed.code).toBe(0);
  return source;
}

const copy = (from: TestDatabase, to: TestDatabase) => svc(['copy', '--from', from.url, '--to', to.url], {});

/**
 * A copy that fails part-way (issue 35's operator-flow audit) has run the target's migrations, which commit before
 * the rows' one transaction rolls back: svc's tables stay, without a row. Copying again goes on from there, and
 * a target that holds anything more is still refused. The source is SQLite, the target the dialect of the suite
 * (SQLite: a file that was there already, which a failed copy keeps).
 */
eachDialect('svc copy into what a failed copy left', (dialect) => {
  it('copies again after a failure part-way: every row of the source, identical', async () => {
    const source = await seeded('30');
    const target = await createTestDatabase(dialect);
    let file: SqliteDatabase.Database | undefined;
    try {
      const into = targetOf(target.url);
      if (into.dialect === 'sqlite') fs.writeFileSync(into.path, '');
      // The fault: one value names a field that is not there (written with foreign keys off), which the target's
      // foreign key refuses when the copy reaches field values, after the accounts and fields are written.
      file = new SqliteDatabase(fileOf(source.url));
      file.pragma('foreign_keys = OFF');
      const value = file.prepare('select rowid, field_id from field_values order by rowid limit 1').get() as {
        rowid: number;
        field_id: string;
      };
      file.prepare(`update field_values set field_id = 'no_such_field' where rowid = ?`).run(value.rowid);
      const failed = await copy(source, target);
      expect([failed.code, failed.stdout, failed.stderr]).toEqual([1, '', expect.stringMatching(/foreign key/i)]);
      const left = await contents(target.url);
      const { migrations, rows } = await contents(source.url);
      expect(left).toEqual({ migrations, rows: Object.fromEntries(Object.keys(rows).map((table) => [table, []])) });

      file.prepare('update field_values set field_id = ? where rowid = ?').run(value.field_id, value.rowid);
      file.close();
      const copied = await copy(source, target);
      expect([copied.code, copied.stderr]).toEqual([
        0,
        `svc: copying sqlite:${fileOf(source.url)} into ${describeDatabase(into)}\n`,
      ]);
      expect(JSON.parse(copied.stdout)).toMatchObject({ migrations_run: [], tables: { accounting_records: 30 } });
      expect(await contents(target.url)).toEqual(await contents(source.url));
    } finally {
      if (file?.open) file.close();
      await Promise.all([source.drop(), target.drop()]);
    }
  });

  it('refuses a target with a row, a table of its own or a migration the source has not run; takes one behind it', async () => {
    const source = await seeded('5');
    const earlier = await createTestDatabase('sqlite');
    const targets = await Promise.all([1, 2, 3, 4].map(() => createTestDatabase(dialect)));
    const [withRow, withTable, ahead, behind] = targets as [TestDatabase, TestDatabase, TestDatabase, TestDatabase];
    const names = Object.keys(MIGRATIONS);
    try {
      for (const target of [withRow, withTable, ahead])
        expect((await svc(['migrate'], { DATABASE_URL: target.url })).code).toBe(0);
      expect((await svc(['vendors', 'create', '--vendor', 'acme_erp'], { DATABASE_URL: withRow.url })).code).toBe(0);
      await onDatabase(withTable.url, (db) => sql`create table notes (id integer primary key)`.execute(db.direct));
      await migratedTo(earlier.url, names.at(-2)!);
      await migratedTo(behind.url, names.at(-2)!);

      for (const [from, to, what] of [
        [source, withRow, 'rows in vendors'],
        [source, withTable, 'tables the source does not have: notes'],
        [earlier, ahead, `migrations other than the source's first ones: ${names.at(-1)}`],
      ] as const) {
        const before = await contents(to.url);
        const refused = await copy(from, to);
        const tables = (await onDatabase(to.url, (db) => tablesOf(db.direct))).length;
        expect([refused.code, refused.stdout, refused.stderr.split('\n')[1]]).toEqual([
          1,
          '',
          `svc: ${describeDatabase(targetOf(to.url))} is not empty (${tables} tables; ${what}): a copy writes only ` +
            "into an empty database, or one a failed copy left (svc's tables without a row)",
        ]);
        expect(await contents(to.url)).toEqual(before);
      }

      // svc's tables at an earlier migration than the source's, without a row: migrated on, then filled.
      const copied = await copy(source, behind);
      expect(copied.code).toBe(0);
      expect(await contents(behind.url)).toEqual(await contents(source.url));
    } finally {
      await Promise.all([source, earlier, ...targets].map((d) => d.drop()));
    }
  });
});
