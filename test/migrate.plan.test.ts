import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/db/migrate.js';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { createTestDatabase } from './support/databases.js';
import { CODING_RULES, laterFrom, RECEIPTS, undoCodingRules } from './support/migrations.js';
import { ROOT, svc } from './support/processes.js';

const NAMES = Object.keys(MIGRATIONS);

/** `svc migrate --plan` through the real CLI: exit 0 and its JSON. */
async function plan(url: string) {
  const res = await svc(['migrate', '--plan'], { DATABASE_URL: url });
  expect([res.code, res.stderr]).toEqual([0, expect.stringMatching(/^svc: database /)]);
  return JSON.parse(res.stdout);
}

/** A pending migration as the plan shows it on `dialect`, given the rows of the tables it works through. */
const entry = (dialect: 'sqlite' | 'postgres', name: string, rows: Record<string, number | null>) => ({
  name,
  online: MIGRATIONS[name]!.plan.online[dialect],
  rows,
  note: MIGRATIONS[name]!.plan.note,
});

describeEachDialect('svc migrate --plan', (t) => {
  it('on an empty database: every migration pending, none applied; svc migrate runs them; then nothing pending', async () => {
    const empty = await createTestDatabase(t.dialect);
    // An empty SQLite database is an empty file: a plan refuses a file that is not there (backup.mistyped-paths).
    if (t.dialect === 'sqlite') fs.writeFileSync(empty.url.slice('sqlite:'.length), '');
    try {
      const before = await plan(empty.url);
      expect(before).toEqual({
        dialect: t.dialect,
        applied: 0,
        // No table exists yet: the rows of each table it works through are not known (null).
        pending: NAMES.map((name) =>
          entry(t.dialect, name, Object.fromEntries(MIGRATIONS[name]!.plan.scans.map((s) => [s, null]))),
        ),
        stop_service: true,
        out_of_order: [],
        unknown: [],
      });
      // Migrations that rewrite or index existing rows are not online; those that only add are.
      const online = Object.fromEntries(before.pending.map((m: any) => [m.name, m.online]));
      expect(online).toMatchObject({
        '0005_record_details': false,
        '0022_suggestion_indexes': false,
        '0027_record_search_terms': false,
        '0030_record_receipt_links': false,
        '0033_covering_history_indexes': false,
        '0012_client_secret_rotation': true,
        '0024_merchant_category_code': true,
        '0025_receipts': true,
      });
      // The plan applied nothing: running them applies all of them.
      const ran = await svc(['migrate'], { DATABASE_URL: empty.url });
      expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: NAMES }]);
      expect(await plan(empty.url)).toEqual({
        dialect: t.dialect,
        applied: NAMES.length,
        pending: [],
        stop_service: false,
        out_of_order: [],
        unknown: [],
      });
    } finally {
      await empty.drop();
    }
  });

  it('on a database at 0018 holding records: the later migrations with the rows they work through; svc migrate runs exactly those', async () => {
    const api = await t.ctx.as([...ADMIN]);
    await api.newRecords([{}, {}, { type: 'BILL_EXPENSE' }]);
    await undoCodingRules(t.ctx.db.direct as Kysely<any>);
    const later = laterFrom(CODING_RULES);
    const rows: Record<string, Record<string, number | null>> = {
      '0020_webhook_dispatchers': { webhook_deliveries: 0 },
      '0022_suggestion_indexes': { accounting_records: 3 },
      '0027_record_search_terms': { accounting_records: 3, accounting_record_details: 3 },
      '0030_record_receipt_links': { accounting_record_details: 3 },
      '0033_covering_history_indexes': { accounting_records: 3 },
    };
    expect(await plan(t.ctx.database.url)).toEqual({
      dialect: t.dialect,
      applied: NAMES.length - later.length,
      pending: later.map((name) => entry(t.dialect, name, rows[name] ?? {})),
      stop_service: true,
      out_of_order: [],
      unknown: [],
    });
    const ran = await svc(['migrate'], { DATABASE_URL: t.ctx.database.url });
    expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: later }]);
    expect((await plan(t.ctx.database.url)).pending).toEqual([]);
  });

  it('names a pending migration that sorts before an applied one, and svc migrate runs it too', async () => {
    // A database made between two merges that landed 0027 before 0025 (the repository's 1bf87fd).
    const db = t.ctx.db.direct as Kysely<any>;
    for (const table of ['receipt_contents', 'receipts']) await sql`drop table ${sql.ref(table)}`.execute(db);
    await sql`delete from kysely_migration where name = ${RECEIPTS}`.execute(db);
    const shown = await plan(t.ctx.database.url);
    expect([shown.pending.map((m: any) => m.name), shown.out_of_order]).toEqual([[RECEIPTS], [RECEIPTS]]);
    const ran = await svc(['migrate'], { DATABASE_URL: t.ctx.database.url });
    expect([ran.code, JSON.parse(ran.stdout)]).toEqual([0, { applied: [RECEIPTS] }]);
    const after = await plan(t.ctx.database.url);
    expect([after.pending, after.out_of_order]).toEqual([[], []]);
    const tables = await sql<{ n: number | string }>`select count(*) as n from receipts`.execute(db);
    expect(Number(tables.rows[0]!.n)).toBe(0);
  });
});

describe('svc migrate --notes', () => {
  it('prints the release notes that docs/operations.md carries, one row per migration', async () => {
    const res = await svc(['migrate', '--notes'], {});
    expect([res.code, res.stderr]).toEqual([0, '']);
    const table = res.stdout.trimEnd();
    expect(
      table
        .split('\n')
        .slice(2)
        .map((row) => /^\| `([^`]+)`/.exec(row)?.[1]),
    ).toEqual(NAMES);
    const docs = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const between = /<!-- release-notes:start[^>]*-->\n([\s\S]*?)\n<!-- release-notes:end -->/.exec(docs);
    expect(between?.[1]).toBe(table);
  });

  it('--plan and --notes together is a usage error that opens nothing', async () => {
    const res = await svc(['migrate', '--plan', '--notes'], { DATABASE_URL: 'sqlite:/nonexistent/dir/x.sqlite' });
    expect([res.code, res.stdout]).toEqual([2, '']);
    expect(res.stderr).toBe("svc: give --plan or --notes, not both\nRun 'svc migrate --help' for usage.\n");
  });
});
