import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, EXPORT_RESULTS, INGEST, item, RECORDS } from './support/accounting.js';

const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((r) => r.id);

describeEachDialect('accounting query /v3/accounting/records', (t) => {
  it('gets one record; single_entry keeps the economic lines only; 404 for unknown and foreign', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const other = await t.ctx.as([...ADMIN]);
    const refund = await api.newRecord({ type: 'CARD_EXPENSE_REFUND' });
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    const full = await reader.get(`${RECORDS}/${refund.id}`);
    expect(full.body).toEqual(refund);
    const single = await reader.get(`${RECORDS}/${refund.id}`, { single_entry: 'true' });
    expect(single.body).toEqual({ ...refund, line_items: [refund.line_items[0]] });
    expect(single.body.line_items[0].type).toBe('CREDIT');
    expect((await reader.get(`${RECORDS}/${refund.id}`, { single_entry: 'false' })).body).toEqual(refund);
    expect((await reader.get(`${RECORDS}/${refund.id}`, { single_entry: 'maybe' })).status).toBe(400);
    const foreign = await other.get(`${RECORDS}/${refund.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error_code).toBe('NOT_FOUND');
    expect((await other.get(RECORDS)).body).toEqual({
      items: [],
      has_next_page: false,
      next_cursor: null,
      total_count: 0,
    });
    const nothing = await t.ctx.as(['fields.read'], api.accountId);
    expect((await nothing.get(`${RECORDS}/${refund.id}`)).status).toBe(403);
  });

  it('filters by ids, review_status, source_type, updated_at bounds; all apply together', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const [card, reimb, bill, card2] = await api.newRecords([
      { type: 'CARD_EXPENSE_POST', review_status: 'READY_FOR_EXPORT' },
      { type: 'REIMBURSEMENT_EXPENSE_POST', review_status: 'READY_FOR_EXPORT' },
      { type: 'BILL_EXPENSE', review_status: 'READY_FOR_EXPORT' },
      { type: 'CARD_PAYMENT' },
    ]);
    const all = await api.get(RECORDS);
    expect(all.body).toEqual({
      items: [card, reimb, bill, card2],
      has_next_page: false,
      next_cursor: null,
      total_count: 4,
    });
    expect(ids(await api.get(RECORDS, { ids: [card2.id, bill.id, 'accr_missing'] }))).toEqual([bill.id, card2.id]);
    expect(ids(await api.get(RECORDS, { ids: card.id }))).toEqual([card.id]);
    // review_status alone: card and reimbursement records only
    expect(ids(await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT' }))).toEqual([card.id, reimb.id]);
    expect(ids(await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT', source_type: 'CARD' }))).toEqual([card.id]);
    expect(ids(await api.get(RECORDS, { source_type: 'BILL' }))).toEqual([bill.id]);
    expect(ids(await api.get(RECORDS, { source_type: 'CARD' }))).toEqual([card.id, card2.id]);
    expect(ids(await api.get(RECORDS, { 'updated_at[gt]': reimb.updated_at }))).toEqual([bill.id, card2.id]);
    expect(ids(await api.get(RECORDS, { 'updated_at[gte]': reimb.updated_at }))).toEqual([reimb.id, bill.id, card2.id]);
    expect(ids(await api.get(RECORDS, { 'updated_at[lt]': bill.updated_at }))).toEqual([card.id, reimb.id]);
    expect(
      ids(await api.get(RECORDS, { 'updated_at[lte]': bill.updated_at, 'updated_at[gt]': card.updated_at })),
    ).toEqual([reimb.id, bill.id]);
    const bounded = await api.get(RECORDS, {
      source_type: 'CARD',
      'updated_at[gt]': card.updated_at,
      ids: [card.id, card2.id, bill.id],
    });
    expect(bounded.body).toEqual({ items: [card2], has_next_page: false, next_cursor: null, total_count: 1 });
    // an offset zone means the same instant
    const instant = new Date(Date.parse(reimb.updated_at)).getTime();
    const plus2 = new Date(instant + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect((await api.get(RECORDS, { 'updated_at[gt]': plus2 })).status).toBe(200);
    // single_entry on query
    const single = await api.get(RECORDS, { single_entry: 'true', source_type: 'BILL' });
    expect(single.body.items[0].line_items).toEqual([bill.line_items[0]]);
    // a moved record moves to the end of the order
    const moved = await api.moveTo(card.id, ['REVIEW']);
    expect(ids(await api.get(RECORDS))).toEqual([reimb.id, bill.id, card2.id, card.id]);
    expect(ids(await api.get(RECORDS, { 'updated_at[gt]': card2.updated_at }))).toEqual([moved.id]);
  });

  it('rejects bad parameters with 400', async () => {
    const api = await t.ctx.as(['accounting.record.read']);
    const bad = async (query: Record<string, string | string[]>) => {
      const res = await api.get(RECORDS, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      return res.body;
    };
    expect((await bad({ review_status: 'READY_FOR_EXPORT', source_type: 'BILL' })).details.errors).toEqual([
      { path: '/query/review_status', message: 'is supported only with source_type CARD or REIMBURSEMENT' },
    ]);
    expect((await bad({ ids: Array.from({ length: 501 }, (_, i) => `accr_${i}`) })).details.errors).toEqual([
      { path: '/query/ids', message: expect.any(String) },
    ]);
    expect((await bad({ limit: '0' })).details.errors).toEqual([{ path: '/query/limit', message: expect.any(String) }]);
    expect((await bad({ limit: '501' })).details.errors).toEqual([
      { path: '/query/limit', message: expect.any(String) },
    ]);
    expect((await bad({ limit: 'ten' })).error_code).toBe('INVALID_REQUEST');
    for (const key of ['updated_at[gt]', 'updated_at[gte]', 'updated_at[lt]', 'updated_at[lte]']) {
      for (const value of ['2026-06-11T09:09:10', '2026-06-11', 'yesterday', '2026-02-30T00:00:00Z']) {
        expect((await bad({ [key]: value })).details.errors).toEqual([
          { path: `/query/${key}`, message: 'must be an RFC 3339 date-time with a time zone' },
        ]);
      }
    }
    expect((await bad({ review_status: 'DONE' })).details.errors).toEqual([
      {
        path: '/query/review_status',
        message: 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT, EXPORTED (got "DONE")',
      },
    ]);
    expect((await bad({ source_type: 'CASH' })).details.errors[0].path).toBe('/query/source_type');
    expect((await bad({ sort: 'id' })).details.errors).toEqual([{ path: '/query/sort', message: expect.any(String) }]);
    expect((await api.get(RECORDS, { ids: Array.from({ length: 500 }, (_, i) => `accr_${i}`) })).status).toBe(200);
  });

  it('pages by cursor with total_count; cursors are bound to filters and to the account', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const created = await api.newRecords(
      Array.from({ length: 7 }, (_, i) => ({ type: i % 2 ? 'BILL_EXPENSE' : 'CARD_EXPENSE_POST' })),
    );
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await api.get(RECORDS, { limit: '3', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(pages === 0 ? 7 : 8);
      expect(res.body.has_next_page).toBe(res.body.next_cursor !== null);
      seen.push(...ids(res));
      cursor = res.body.next_cursor ?? undefined;
      pages++;
      // a write between pages does not make anything appear twice or vanish
      if (pages === 1) await api.newRecord();
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(8);
    expect(seen.slice(0, 7)).toEqual(created.map((r) => r.id));
    expect(new Set(seen).size).toBe(seen.length);

    const first = await api.get(RECORDS, { limit: '2', source_type: 'BILL' });
    expect(first.body).toMatchObject({ has_next_page: true, total_count: 3 });
    const next = await api.get(RECORDS, { limit: '2', source_type: 'BILL', cursor: first.body.next_cursor });
    expect(next.body).toMatchObject({ has_next_page: false, next_cursor: null, total_count: 3 });
    expect(ids(next)).toEqual([created[5].id]);
    const mismatches: Record<string, string>[] = [
      { source_type: 'CARD' },
      {},
      { source_type: 'BILL', 'updated_at[gt]': '2020-01-01T00:00:00Z' },
    ];
    for (const query of mismatches) {
      const mismatched = await api.get(RECORDS, { limit: '2', ...query, cursor: first.body.next_cursor });
      expect(mismatched.status).toBe(400);
      expect(mismatched.body.error_code).toBe('INVALID_CURSOR');
    }
    const tampered = first.body.next_cursor.slice(0, -2) + (first.body.next_cursor.endsWith('A') ? 'BB' : 'AA');
    expect((await api.get(RECORDS, { limit: '2', source_type: 'BILL', cursor: tampered })).body.error_code).toBe(
      'INVALID_CURSOR',
    );
    const other = await t.ctx.as(['accounting.record.read']);
    expect(
      (await other.get(RECORDS, { limit: '2', source_type: 'BILL', cursor: first.body.next_cursor })).body.error_code,
    ).toBe('INVALID_CURSOR');
  });

  it('the spec polling rules find exported and bill changes', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const [card, bill] = await api.newRecords([{ review_status: 'READY_FOR_EXPORT' }, { type: 'BILL_EXPENSE' }]);
    const ready = await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT' });
    expect(ids(ready)).toEqual([card.id]);
    await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: card.id, success: { reference_id: 'x' } }] });
    expect(ids(await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT' }))).toEqual([]);
    expect(ids(await api.get(RECORDS, { review_status: 'EXPORTED' }))).toEqual([card.id]);
    const bills = await api.get(RECORDS, { source_type: 'BILL', 'updated_at[gt]': '2000-01-01T00:00:00Z' });
    expect(ids(bills)).toEqual([bill.id]);
    const moved = await api.moveTo(bill.id, ['REVIEW']);
    const since = await api.get(RECORDS, { source_type: 'BILL', 'updated_at[gt]': bill.updated_at });
    expect(since.body.items).toEqual([moved]);
    expect((await api.post(INGEST, { items: [item()] })).status).toBe(200);
  });
});
