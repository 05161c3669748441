import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { ADMIN, RECORDS, item, newRecords, storedRecords } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';

const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;

describeEachDialect('accounting: migrations 0004 (line items as answered) and 0005 (details in their own table)', (t) => {
  it('brings a database as 0003 left it to the latest layout; no answer and no stored detail changes', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const created = await newRecords(api, [
      item(),
      item({ amount: { amount: 1234, currency: 'JPY' }, original_amount: { amount: 10.5, currency: 'USD' } }),
      item({ type: 'BILL_EXPENSE', amount: { amount: 0.125, currency: 'BHD' } }),
    ]);
    const before = await api.get(RECORDS, { limit: '10' });
    const singleBefore = await Promise.all(created.map((r) => api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })));
    expect(before.body.items).toEqual(created);
    const storedBefore = await storedRecords(t.ctx, api.accountId);
    expect(storedBefore).toHaveLength(3);

    // Put the database back as 0003 left it: the details in accounting_records, line items in integer minor
    // units without currency, except the last record's (already answered, as a run of 0004 cut short leaves it).
    const db = t.ctx.db.kysely as any;
    for (const column of DETAILS) {
      await sql`alter table accounting_records add column ${sql.ref(column)} text ${column === 'line_items_json' ? sql`not null default '[]'` : sql``}`.execute(db);
    }
    const exponent: Record<string, number> = { USD: 2, JPY: 0, BHD: 3 };
    for (const [i, row] of storedBefore.entries()) {
      const old = (JSON.parse(row.line_items_json) as any[]).map((l) => ({
        ...l,
        amount: Math.round(l.amount.amount * 10 ** exponent[l.amount.currency]!),
        original_amount: l.original_amount === null ? null : Math.round(l.original_amount.amount * 10 ** exponent[l.original_amount.currency]!),
      }));
      await db
        .updateTable('accounting_records')
        .set({ line_items_json: i < 2 ? JSON.stringify(old) : row.line_items_json, user_json: row.user_json, vendor_json: row.vendor_json, receipts_json: row.receipts_json })
        .where('id', '=', row.id)
        .execute();
    }
    await sql`drop table accounting_record_details`.execute(db);
    await sql`delete from kysely_migration where name in ('0004_line_items_as_answered', '0005_record_details')`.execute(db);
    const oldRows = await db.selectFrom('accounting_records').select(['id', 'line_items_json']).orderBy('updated_at').execute();
    expect(JSON.parse(oldRows[0].line_items_json)[0].amount).toEqual(expect.any(Number));

    expect(await migrateToLatest(t.ctx.db)).toEqual(['0004_line_items_as_answered', '0005_record_details']);

    const after = await api.get(RECORDS, { limit: '10' });
    expect(after.text).toBe(before.text);
    for (const [i, r] of created.entries()) {
      expect((await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text).toBe(singleBefore[i]!.text);
    }
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(storedBefore);
    const columns = (await db.introspection.getTables()).find((table: { name: string }) => table.name === 'accounting_records').columns.map((c: { name: string }) => c.name);
    for (const column of DETAILS) expect(columns).not.toContain(column);
  });
});
