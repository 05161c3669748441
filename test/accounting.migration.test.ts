import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { ADMIN, RECORDS, item, newRecords } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';

describeEachDialect('accounting: migration 0004 (line items stored as answered)', (t) => {
  it('rewrites line items stored in minor units into the answered form; the answers do not change', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const created = await newRecords(api, [
      item(),
      item({ amount: { amount: 1234, currency: 'JPY' }, original_amount: { amount: 10.5, currency: 'USD' } }),
      item({ type: 'BILL_EXPENSE', amount: { amount: 0.125, currency: 'BHD' } }),
    ]);
    const before = await api.get(RECORDS, { limit: '10' });
    const singleBefore = await Promise.all(created.map((r) => api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })));
    expect(before.body.items).toEqual(created);

    // Put the rows back as 0003 stored them: amounts in integer minor units, no currency.
    const db = t.ctx.db.kysely;
    const rows = await db.selectFrom('accounting_records').select(['id', 'line_items_json']).where('account_id', '=', api.accountId).execute();
    const exponent: Record<string, number> = { USD: 2, JPY: 0, BHD: 3 };
    for (const row of rows) {
      const old = (JSON.parse(row.line_items_json) as any[]).map((l) => ({
        ...l,
        amount: Math.round(l.amount.amount * 10 ** exponent[l.amount.currency]!),
        original_amount: l.original_amount === null ? null : Math.round(l.original_amount.amount * 10 ** exponent[l.original_amount.currency]!),
      }));
      await db.updateTable('accounting_records').set({ line_items_json: JSON.stringify(old) }).where('id', '=', row.id).execute();
    }
    expect(JSON.parse(rows[0]!.line_items_json)[0].amount).toEqual(expect.any(Object));
    await sql`delete from kysely_migration where name = '0004_line_items_as_answered'`.execute(db);
    expect(await migrateToLatest(t.ctx.db)).toEqual(['0004_line_items_as_answered']);

    const after = await api.get(RECORDS, { limit: '10' });
    expect(after.text).toBe(before.text);
    for (const [i, r] of created.entries()) {
      expect((await api.get(`${RECORDS}/${r.id}`, { single_entry: 'true' })).text).toBe(singleBefore[i]!.text);
    }
    // A second run finds nothing to rewrite.
    const stored = await db.selectFrom('accounting_records').select('line_items_json').where('account_id', '=', api.accountId).execute();
    await sql`delete from kysely_migration where name = '0004_line_items_as_answered'`.execute(db);
    await migrateToLatest(t.ctx.db);
    expect(await db.selectFrom('accounting_records').select('line_items_json').where('account_id', '=', api.accountId).execute()).toEqual(stored);
  });
});
