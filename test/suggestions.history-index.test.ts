import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { planOf } from './support/plans.js';
import { COVERING_HISTORY, laterFrom, undoCoveringHistory } from './support/migrations.js';
import { BATCH, history } from './support/suggestions.js';

/**
 * The history reads as suggestion-history.repository.ts runs them for one key (SQLite runs one a key; PostgreSQL
 * the same subquery once per key, laterally): a vendor's and a user's take no memo, a record type's does.
 */
const HEAD = 'r.id, r.type, r.version, r.currency, r.amount_minor, r.posted_at';
const read = (columns: string, compared: string) =>
  `select ${columns} from accounting_records as r where r.account_id = ? and ${compared} = lower(?)` +
  " and r.review_status in ('READY_FOR_EXPORT', 'EXPORTED') order by r.posted_at desc, r.id desc limit 50";
const VENDOR_READ = read(HEAD, 'lower(r.vendor_name)');
const USER_READ = read(HEAD, 'lower(r.user_email)');

/** PostgreSQL told to prefer an index scan, the records' statistics and visibility map fresh. */
const HISTORY_PLAN = { indexScans: true, fresh: 'accounting_records' };

describeEachDialect("coding suggestions: the history reads' indexes (0033)", (t) => {
  it("reads a vendor's and a user's history from the index alone, newest first (no sort, no table read)", async () => {
    const vendor = await planOf(t.ctx, VENDOR_READ, ['acc', 'Uber'], HISTORY_PLAN);
    const user = await planOf(t.ctx, USER_READ, ['acc', 'a@example.com'], HISTORY_PLAN);
    if (t.dialect === 'sqlite') {
      expect(vendor).toBe(
        'SEARCH r USING COVERING INDEX accounting_records_vendor_hist_idx (account_id=? AND <expr>=?)',
      );
      expect(user).toBe('SEARCH r USING COVERING INDEX accounting_records_user_hist_idx (account_id=? AND <expr>=?)');
    } else {
      expect(vendor).toMatch(/Index Only Scan Backward using accounting_records_vendor_hist_idx/);
      expect(user).toMatch(/Index Only Scan Backward using accounting_records_user_hist_idx/);
      for (const plan of [vendor, user]) expect(plan).not.toMatch(/Sort|Heap|Seq Scan/);
    }
  });

  it('0033 rebuilds the indexes over the records there: suggestions answer the same before it and after', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    await history(api, [
      { vendor: 'Uber', codes: [set(gl, 1), set(dept, 0)] },
      { vendor: 'uber', codes: [set(gl, 1), set(dept, 1)] },
      { vendor: 'Lyft', codes: [set(gl, 1)], extra: { memo: 'Taxi to the airport' } },
      { vendor: null, codes: [set(gl, 0)], extra: { memo: 'Team lunch' } },
      { vendor: null, codes: [set(gl, 0)], extra: { memo: 'Lunch with a client' } },
      { vendor: null, codes: [set(gl, 0)], extra: { memo: 'Lunch' } },
    ]);
    const page = await api.newRecords([
      { vendor: { id: 'v', name: 'UBER' } },
      { vendor: { id: 'v', name: 'Lyft' } },
      { memo: 'Lunch at the office' },
    ]);
    const ask = async () => {
      const res = await api.post(BATCH, { accounting_record_ids: page.map((r: any) => r.id) });
      expect(res.status, res.text).toBe(200);
      return res.text;
    };
    const answer = await ask();
    expect(JSON.parse(answer).items.map((i: any) => i.suggestions.length > 0)).toEqual([true, true, true]);

    await undoCoveringHistory(t.ctx.db.direct);
    expect(await ask()).toBe(answer);
    if (t.dialect === 'sqlite') {
      // 0022's indexes again: each row read from the records' table.
      expect(await planOf(t.ctx, VENDOR_READ, [api.accountId, 'uber'], HISTORY_PLAN)).toBe(
        'SEARCH r USING INDEX accounting_records_vendor_hist_idx (account_id=? AND <expr>=?)',
      );
    }

    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(COVERING_HISTORY));
    expect(await ask()).toBe(answer);
    expect(await planOf(t.ctx, VENDOR_READ, [api.accountId, 'uber'], HISTORY_PLAN)).toMatch(
      /COVERING INDEX accounting_records_vendor_hist_idx|Index Only Scan Backward using accounting_records_vendor_hist_idx/,
    );
  });
});
