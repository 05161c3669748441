import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Api, Query, Response } from './support/api.js';
import { PEOPLE } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { laterFrom, RECORD_TERMS, undoRecordTerms } from './support/migrations.js';
import { ids, money, REVIEWER, SEARCH } from './support/review.js';

const vendor = (name: string) => ({ ...PEOPLE.vendor, name });

/** Four records, each found by other words; in updated_at order r0 … r3. */
async function records(ctx: TestContext) {
  const api = await ctx.as(REVIEWER);
  const r = (
    await api.newRecords([
      { vendor: vendor('Acme Coffee'), memo: 'Team offsite lunch', amount: money(20) },
      {
        type: 'BILL_EXPENSE',
        review_status: 'REVIEW',
        vendor: vendor('Zeta Supplies'),
        invoice_number: 'INV-2026-0042',
        amount: money(1234.5),
      },
      { vendor: vendor('Café Élan'), memo: 'Client dinner', amount: money(20, 'EUR') },
      { amount: money(99.99) },
    ])
  ).map((record: { id: string }) => record.id);
  return { api, r };
}

async function found(api: Api, query: Query) {
  const res = await api.get(SEARCH, query);
  expect(res.status, res.text).toBe(200);
  return ids(res);
}

/** The stored terms of the account's records, by record (accounting_record_terms). */
async function storedTerms(ctx: TestContext, accountId: string) {
  const rows = await ctx.db.direct
    .selectFrom('accounting_record_terms')
    .select(['record_id', 'term'])
    .where('account_id', '=', accountId)
    .orderBy('record_id')
    .orderBy('term')
    .execute();
  const out: Record<string, string[]> = {};
  for (const row of rows) (out[row.record_id] ??= []).push(row.term);
  return out;
}

describeEachDialect('review: the queue’s free-text search (q)', (t) => {
  it('finds records by a word of their vendor, memo or invoice number, by their id, or by their amount', async () => {
    const { api, r } = await records(t.ctx);
    const stranger = await t.ctx.as(REVIEWER);
    await stranger.newRecord({ vendor: vendor('Acme Coffee'), memo: 'lunch', amount: money(20) });
    const cases: [string, (string | undefined)[]][] = [
      ['acme', [r[0]]],
      ['ACME cof', [r[0]]],
      ['lunch', [r[0]]],
      ['offsite   team', [r[0]]],
      ['acme dinner', []],
      ['INV-2026-0042', [r[1]]],
      ['inv-2026', [r[1]]],
      ['0042', [r[1]]],
      ['zeta supplies', [r[1]]],
      ['ÉLAN', [r[2]]],
      ['élan,', [r[2]]],
      ['1,234.50', [r[1]]],
      ['1234.5', [r[1]]],
      ['99.99', [r[3]]],
      // An amount in any currency, and the words that begin with it (2026 of the invoice number).
      ['20', [r[0], r[1], r[2]]],
      [r[3]!, [r[3]]],
      [r[3]!.toUpperCase(), [r[3]]],
      ['%', []],
      ['nothing-like-it', []],
    ];
    const answers = [];
    for (const [q] of cases) answers.push([q, await found(api, { q })]);
    expect(answers).toEqual(cases);
  });

  it('narrows with the other filters, sorts and pages with its cursor', async () => {
    const { api, r } = await records(t.ctx);
    expect(await found(api, { q: '20', vendor: 'café' })).toEqual([r[2]]);
    expect(await found(api, { q: '20', review_status: 'REVIEW' })).toEqual([r[1]]);
    // 1234.50 USD, then 20.00 EUR and 20.00 USD: the same amount_sort, ties by id, descending.
    const tied = [r[0]!, r[2]!].sort().reverse();
    expect(await found(api, { q: '20', sort: '-amount' })).toEqual([r[1], ...tied]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Response = await api.get(SEARCH, { q: '20', limit: '1', ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([r[0], r[1], r[2]]);
    // A cursor is of its query: another text refuses it.
    const first = await api.get(SEARCH, { q: '20', limit: '1' });
    const other = await api.get(SEARCH, { q: 'acme', limit: '1', cursor: first.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.error_code).toBe('INVALID_CURSOR');
  });

  it('pages a text that matches many records (more than the 2000 read as a set) in order, as a few', async () => {
    const api = await t.ctx.as(REVIEWER);
    const many = (await api.newRecords(Array.from({ length: 2003 }, (_, i) => ({ memo: `bulk ${i}` })))).map(
      (record: { id: string }) => record.id,
    );
    const other = await api.newRecord({ memo: 'other' });
    expect(await found(api, { q: 'bulk', limit: '3' })).toEqual(many.slice(0, 3));
    expect(await found(api, { q: 'bulk', limit: '3', sort: '-updated_at' })).toEqual(many.slice(-3).reverse());
    const last = await api.get(SEARCH, { q: 'bulk', limit: '500', sort: '-updated_at' });
    expect(last.status, last.text).toBe(200);
    expect(ids(last)).not.toContain(other.id);
    expect(await found(api, { q: 'bulk 2002' })).toEqual([many[2002]]);
  });

  it('refuses an empty or over-long text, 400 with its pointer', async () => {
    const api = await t.ctx.as(REVIEWER);
    for (const q of ['', 'x'.repeat(201)]) {
      const res = await api.get(SEARCH, { q });
      const errors = [{ path: '/query/q', message: expect.any(String) }];
      expect([res.status, res.body]).toEqual([400, errorBody('INVALID_REQUEST', { details: { errors } })]);
    }
  });

  it('stores each record’s terms when it is written; migration 0027 gives records written before it the same', async () => {
    const { api, r } = await records(t.ctx);
    const written = await storedTerms(t.ctx, api.accountId);
    expect(written[r[1]!]).toEqual(
      [r[1]!.toLowerCase(), '0042', '2026', 'inv', 'inv-2026-0042', 'supplies', 'zeta', 'zeta supplies'].sort(),
    );
    expect(written[r[2]!]).toEqual([r[2]!.toLowerCase(), 'café', 'café élan', 'client', 'dinner', 'élan'].sort());
    expect(written[r[3]!]).toEqual([r[3]!.toLowerCase()]);

    await undoRecordTerms(t.ctx.db.direct);
    expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(RECORD_TERMS));
    expect(await storedTerms(t.ctx, api.accountId)).toEqual(written);
    expect(await found(api, { q: 'zeta inv' })).toEqual([r[1]]);
  });
});
