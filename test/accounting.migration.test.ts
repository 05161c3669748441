import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { ADMIN, PEOPLE, RECORDS } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { backTo0005, DETAILS, LATER, linesBefore0008, REVIEW_COLUMNS } from './support/migrations.js';
import { storedRecords } from './support/stored.js';

/** Records with every kind of detail, their answers, and their stored rows. */
async function recordsOfEveryKind(ctx: TestContext) {
  const api = await ctx.as([...ADMIN]);
  const created = await api.newRecords([
    PEOPLE,
    {
      amount: { amount: 1234, currency: 'JPY' },
      original_amount: { amount: 10.5, currency: 'USD' },
      receipts: [],
    },
    {
      type: 'BILL_EXPENSE',
      amount: { amount: 0.125, currency: 'BHD' },
      vendor: { id: 'v_2', name: 'Vendor B', website: null },
    },
  ]);
  const page = await api.get(RECORDS, { limit: '10' });
  expect(page.body.items).toEqual(created);
  const singles = await Promise.all(
    created.map(async (r) => (await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text),
  );
  const stored = await storedRecords(ctx, api.accountId);
  expect(stored.map((r) => [r.user_json !== null, r.vendor_json !== null, r.receipts_json])).toEqual([
    [true, true, JSON.stringify(PEOPLE.receipts)],
    [false, false, '[]'],
    [false, true, null],
  ]);
  return { api, created, page: page.text, singles, stored };
}

/**
 * Puts the database back as 0003 left it: the details in accounting_records, line items in integer minor units
 * without currency, except the last record's (already answered, as a run of 0004 cut short leaves it).
 */
async function backTo0003(
  db: Kysely<any>,
  dialect: string,
  stored: Awaited<ReturnType<typeof recordsOfEveryKind>>['stored'],
) {
  await backTo0005(db, dialect);
  for (const column of DETAILS) {
    await sql`alter table accounting_records add column ${sql.ref(column)} text ${column === 'line_items_json' ? sql`not null default '[]'` : sql``}`.execute(
      db,
    );
  }
  // Every record's details back in its row (other tests' accounts too: they share this database)...
  const detail = (column: string) =>
    sql`(select d.${sql.ref(column)} from accounting_record_details d where d.account_id = accounting_records.account_id and d.id = accounting_records.id)`;
  await sql`update accounting_records set ${sql.join(DETAILS.map((c) => sql`${sql.ref(c)} = ${detail(c)}`))}`.execute(
    db,
  );
  // ...and these records' line items in the old form.
  const exponent: Record<string, number> = { USD: 2, JPY: 0, BHD: 3 };
  for (const [i, row] of stored.entries()) {
    const old = (JSON.parse(linesBefore0008(row.line_items_json)) as any[]).map((l) => ({
      ...l,
      amount: Math.round(l.amount.amount * 10 ** exponent[l.amount.currency]!),
      original_amount:
        l.original_amount === null
          ? null
          : Math.round(l.original_amount.amount * 10 ** exponent[l.original_amount.currency]!),
    }));
    await db
      .updateTable('accounting_records')
      .set({ line_items_json: i < 2 ? JSON.stringify(old) : linesBefore0008(row.line_items_json) })
      .where('account_id', '=', row.account_id)
      .where('id', '=', row.id)
      .execute();
  }
  await sql`drop table accounting_record_details`.execute(db);
  await sql`delete from kysely_migration where name in (${sql.join(LATER)})`.execute(db);
}

const columnsOf = async (db: Kysely<any>, table: string) =>
  ((await db.introspection.getTables()).find((t) => t.name === table)?.columns ?? []).map((c) => c.name).sort();

describeEachDialect(
  'accounting: migrations 0004 (line items as answered) and 0005 (details in their own table)',
  (t) => {
    it('brings a database as 0003 left it to the latest layout; no answer and no stored detail changes', async () => {
      const { api, created, page, singles, stored } = await recordsOfEveryKind(t.ctx);
      const db = t.ctx.db.direct as Kysely<any>;
      const latestColumns = await columnsOf(db, 'accounting_records');
      await backTo0003(db, t.dialect, stored);
      for (const column of REVIEW_COLUMNS) expect(await columnsOf(db, 'accounting_records')).not.toContain(column);
      const oldRows = await db
        .selectFrom('accounting_records')
        .select(['id', 'line_items_json'])
        .orderBy('updated_at')
        .execute();
      expect(JSON.parse(oldRows[0]!.line_items_json)[0].amount).toEqual(expect.any(Number));

      expect(await migrateToLatest(t.ctx.db)).toEqual(LATER);

      expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
      for (const [i, r] of created.entries()) {
        expect((await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text).toBe(singles[i]);
      }
      expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
      expect(await columnsOf(db, 'accounting_records')).toEqual(latestColumns);
      for (const column of DETAILS) expect(latestColumns).not.toContain(column);
      if (t.dialect === 'sqlite') {
        // Rebuilt with its indexes and keys.
        const indexes = await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'index' and tbl_name = 'accounting_records' order by name`.execute(
          db,
        );
        expect(indexes.rows.map((r) => r.name)).toEqual([
          'accounting_records_amount_idx',
          'accounting_records_posted_idx',
          'accounting_records_review_status_idx',
          'accounting_records_source_type_idx',
          // 0022's, for the suggestions' history reads.
          'accounting_records_type_hist_idx',
          'accounting_records_updated_idx',
          'accounting_records_user_hist_idx',
          'accounting_records_vendor_hist_idx',
          expect.stringMatching(/^sqlite_autoindex_accounting_records/),
        ]);
        expect((await sql`pragma foreign_key_check`.execute(db)).rows).toEqual([]);
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows).toEqual([
          { foreign_keys: 1 },
        ]);
      }
    });

    it('changes nothing when 0005 fails half-way (a view still reads a detail column), and runs once that is gone', async () => {
      const { api, page, stored } = await recordsOfEveryKind(t.ctx);
      const db = t.ctx.db.direct as Kysely<any>;
      await backTo0003(db, t.dialect, stored);
      await sql`create view vendors_0005_test as select id, vendor_json from accounting_records`.execute(db);
      const before = {
        columns: await columnsOf(db, 'accounting_records'),
        rows: await db.selectFrom('accounting_records').selectAll().orderBy('id').execute(),
      };

      await expect(migrateToLatest(t.ctx.db)).rejects.toThrow();

      const applied = await sql<{
        name: string;
      }>`select name from kysely_migration where name in (${sql.join(LATER)}) order by name`.execute(db);
      // 0005 left no trace; one transaction holds the whole run on both dialects, so 0004 is undone with it.
      expect(applied.rows.map((r) => r.name)).toEqual([]);
      expect(await columnsOf(db, 'accounting_records')).toEqual(before.columns);
      expect(await columnsOf(db, 'accounting_record_details')).toEqual([]);
      const rows = await db.selectFrom('accounting_records').selectAll().orderBy('id').execute();
      expect(rows.map((r) => ({ ...r, line_items_json: null }))).toEqual(
        before.rows.map((r) => ({ ...r, line_items_json: null })),
      );
      if (t.dialect === 'sqlite')
        expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows).toEqual([
          { foreign_keys: 1 },
        ]);

      await sql`drop view vendors_0005_test`.execute(db);
      expect(await migrateToLatest(t.ctx.db)).toEqual(LATER);
      expect((await api.get(RECORDS, { limit: '10' })).text).toBe(page);
      expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
    });
  },
);

describeEachDialect(
  'accounting: record details on PostgreSQL',
  (t) => {
    it('are stored plain, not compressed, up to 8 kB a row (toast_tuple_target)', async () => {
      const api = await t.ctx.as([...ADMIN]);
      // A ~3 kB row, over the 2 kB default at which PostgreSQL compresses.
      const receipts = Array.from({ length: 10 }, (_, i) => ({
        id: `r_${i}`,
        download_uris: [`https://files.example.invalid/${'x'.repeat(250)}/${i}.pdf`],
      }));
      const [created] = await api.newRecords([{ ...PEOPLE, receipts }]);
      const db = t.ctx.db.direct as Kysely<any>;
      const row = await sql<{ size: number; receipts: string | null; lines: string | null }>`
      select pg_column_size(d.*) as size, pg_column_compression(receipts_json) as receipts, pg_column_compression(line_items_json) as lines
      from accounting_record_details d where account_id = ${api.accountId} and id = ${created.id}`.execute(db);
      expect(row.rows).toEqual([{ size: expect.any(Number), receipts: null, lines: null }]);
      expect(row.rows[0]!.size).toBeGreaterThan(2100);
      expect((await api.get(`${RECORDS}/${created.id}`)).body.receipts).toEqual(receipts);
    });
  },
  {},
  { only: 'postgres' },
);
