import { expect, it } from 'vitest';
import { INGEST, PEOPLE, reviewUrl } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { setPolicy } from './support/receipt-policy.js';
import { newJpeg, receiptsUrl, uploadRaw } from './support/receipts.js';
import { BULK, money, recordAndHistory, REQUIRED, REVIEWER } from './support/review.js';
import { storedRecord } from './support/stored.js';

const recordUrl = (id: string) => `/internal/v1/accounting/records/${id}`;
const MOVES = '/internal/v1/accounting/records/allowed-moves';
const REASON =
  "It needs a receipt before approval: its amount, 171.75 USD, is above 100.00 USD, the account's receipt threshold for this type of record.";
const MESSAGE = "The record needs a receipt before READY_FOR_EXPORT (the account's receipt policy).";

/** A card expense of 171.75 USD (the factories' default) as RECEIPT_REQUIRED names it, above 100.00 USD. */
const shortfall = { record_type: 'CARD_EXPENSE_POST', currency: 'USD', amount_minor: 17175, above_minor: 10000 };

/** An account requiring a receipt above 100.00 USD of card expenses and reimbursements, above 50 EUR of bills. */
async function account(ctx: TestContext) {
  const api = await ctx.as([...REVIEWER, 'events.read']);
  await setPolicy(api, [
    { currency: 'USD', above_minor: 10000, record_types: ['CARD_EXPENSE_POST', 'REIMBURSEMENT_EXPENSE_POST'] },
    { currency: 'EUR', above_minor: 5000, record_types: ['BILL_EXPENSE'] },
  ]);
  return api;
}

describeEachDialect('receipt policy: READY_FOR_EXPORT', (t) => {
  it('refuses a record above the threshold without a receipt, with the exact code and details; nothing changes', async () => {
    const api = await account(t.ctx);
    const record = await api.newRecord({ review_status: 'REVIEW' });
    const before = await recordAndHistory(t.ctx, api, record.id);
    const res = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([res.status, res.body]).toEqual([
      422,
      errorBody('RECEIPT_REQUIRED', {
        message: `Accounting record ${record.id} needs a receipt before READY_FOR_EXPORT: its amount 171.75 USD is above 100.00 USD, the account's receipt threshold for CARD_EXPENSE_POST. Attach a receipt first; nothing was changed.`,
        details: { accounting_record_id: record.id, ...shortfall },
      }),
    ]);
    expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
  });

  it('allows records at or below the threshold, of other types, in other currencies, or with a receipt sent', async () => {
    const api = await account(t.ctx);
    const allowed = await api.newRecords([
      { review_status: 'REVIEW', amount: money(100) },
      { review_status: 'REVIEW', amount: money(99.99) },
      { review_status: 'REVIEW', type: 'INVOICE' },
      { review_status: 'REVIEW', amount: money(171.75, 'GBP') },
      { review_status: 'REVIEW', amount: money(171.75, 'EUR') },
      { review_status: 'REVIEW', receipts: PEOPLE.receipts },
    ]);
    for (const record of allowed) {
      const res = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
      expect([res.status, res.body.review_status], record.amount.currency).toEqual([200, 'READY_FOR_EXPORT']);
    }
    // The EUR rule is about bills: a 50.01 EUR bill needs a receipt, a 50 EUR one does not.
    const [bill, smallBill] = await api.newRecords([
      { review_status: 'REVIEW', type: 'BILL_EXPENSE', amount: money(50.01, 'EUR') },
      { review_status: 'REVIEW', type: 'BILL_EXPENSE', amount: money(50, 'EUR') },
    ]);
    const refused = await api.post(reviewUrl(bill.id), { review_status: 'READY_FOR_EXPORT' });
    expect([refused.status, refused.body.details]).toEqual([
      422,
      {
        accounting_record_id: bill.id,
        record_type: 'BILL_EXPENSE',
        currency: 'EUR',
        amount_minor: 5001,
        above_minor: 5000,
      },
    ]);
    expect((await api.post(reviewUrl(smallBill.id), { review_status: 'READY_FOR_EXPORT' })).status).toBe(200);
  });

  it('allows the move once a receipt is uploaded, and refuses it again once the receipt is removed', async () => {
    const api = await account(t.ctx);
    const record = await api.newRecord({ review_status: 'REVIEW' });
    const upload = await uploadRaw(api, record.id, await newJpeg(), 'image/jpeg');
    expect(upload.status, upload.text).toBe(200);
    const ready = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([ready.status, ready.body.review_status]).toEqual([200, 'READY_FOR_EXPORT']);

    await api.moveTo(record.id, ['REVIEW']);
    const removed = await api.delete(`${receiptsUrl(record.id)}/${upload.body.receipt.id}`);
    expect(removed.status, removed.text).toBe(200);
    const again = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([again.status, again.body.error_code, again.body.details]).toEqual([
      422,
      'RECEIPT_REQUIRED',
      { accounting_record_id: record.id, ...shortfall },
    ]);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ review_status: 'REVIEW' });
  });

  it("names the reason among the record's not-allowed moves, as the move decides it", async () => {
    const api = await account(t.ctx);
    const [lacking, small, prepare] = await api.newRecords([
      { review_status: 'REVIEW' },
      { review_status: 'REVIEW', amount: money(10) },
      { review_status: 'PREPARE' },
    ]);
    const refused = {
      to: 'READY_FOR_EXPORT',
      direction: 'FORWARD',
      allowed: false,
      reason_code: 'RECEIPT_REQUIRED',
      reason: REASON,
    };
    const one = await api.get(recordUrl(lacking.id));
    expect(one.status, one.text).toBe(200);
    expect(one.body.allowed_moves[1]).toEqual(refused);
    const many = await api.get(MOVES, { ids: [lacking.id, small.id, prepare.id] });
    expect(many.status, many.text).toBe(200);
    const ready = (id: string) => many.body.items.find((i: any) => i.id === id).allowed_moves[1];
    expect(ready(lacking.id)).toEqual(refused);
    expect(ready(small.id)).toEqual({ to: 'READY_FOR_EXPORT', direction: 'FORWARD', allowed: true });
    // Submitting would not make it approvable: no way through.
    expect(ready(prepare.id)).toEqual({
      to: 'READY_FOR_EXPORT',
      direction: 'FORWARD',
      allowed: false,
      reason_code: 'INVALID_TRANSITION',
      reason: 'It is still in Prepare: it has to be submitted for review before it can be approved.',
    });
  });

  it('refuses each record of a bulk move on its own: all or nothing, or partly', async () => {
    const api = await account(t.ctx);
    const gl = await api.newCoding('GL Account', [{ value: '6010 Meals' }]);
    const glRef = { field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id };
    const coded = (over: Record<string, unknown> = {}) => ({
      review_status: 'REVIEW',
      lines: [{ amount: money(171.75), field_values: [glRef] }],
      ...over,
    });
    const [ok, lacking, uncoded] = await api.newRecords([
      coded({ receipts: PEOPLE.receipts }),
      coded(),
      { review_status: 'REVIEW' },
    ]);
    const problem = {
      accounting_record_id: lacking.id,
      error_code: 'RECEIPT_REQUIRED',
      message: MESSAGE,
      reason: REASON,
      ...shortfall,
    };

    const all = await api.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: ok.id }, { id: lacking.id }],
    });
    expect([all.status, all.body]).toEqual([
      422,
      errorBody('RECEIPT_REQUIRED', {
        message: '1 of 2 records cannot make this move; nothing was changed. details.errors names each.',
        details: { errors: [problem] },
      }),
    ]);
    expect((await storedRecord(t.ctx, api.accountId, ok.id))!.review_status).toBe('REVIEW');

    // Lacking coding is met first (one problem a record); the gravest code of the batch is CODING_REQUIRED.
    expect((await api.put(REQUIRED, { field_ids: [gl.field.svc_id] })).status).toBe(200);
    const records = [{ id: ok.id }, { id: lacking.id }, { id: uncoded.id }];
    const both = await api.post(BULK, { review_status: 'READY_FOR_EXPORT', records });
    expect([both.status, both.body.error_code]).toEqual([422, 'CODING_REQUIRED']);
    expect(both.body.details.errors.map((e: any) => [e.accounting_record_id, e.error_code])).toEqual([
      [lacking.id, 'RECEIPT_REQUIRED'],
      [uncoded.id, 'CODING_REQUIRED'],
    ]);

    const partly = await api.post(BULK, { review_status: 'READY_FOR_EXPORT', partial: true, records });
    expect(partly.status, partly.text).toBe(200);
    expect(partly.body.items.map((i: any) => [i.id, i.review_status])).toEqual([[ok.id, 'READY_FOR_EXPORT']]);
    expect(partly.body.not_moved[0]).toEqual(problem);
    expect(partly.body.not_moved[1]).toMatchObject({ accounting_record_id: uncoded.id, error_code: 'CODING_REQUIRED' });
    for (const [id, status] of [
      [ok.id, 'READY_FOR_EXPORT'],
      [lacking.id, 'REVIEW'],
      [uncoded.id, 'REVIEW'],
    ]) {
      expect((await storedRecord(t.ctx, api.accountId, id))!.review_status).toBe(status);
    }
  });

  it('refuses to create a record READY_FOR_EXPORT that needs a receipt it lacks, naming each item; nothing is stored', async () => {
    const api = await account(t.ctx);
    const items = [
      { review_status: 'READY_FOR_EXPORT', amount: money(50) },
      { review_status: 'READY_FOR_EXPORT' },
      { review_status: 'READY_FOR_EXPORT', receipts: PEOPLE.receipts },
      { review_status: 'REVIEW' },
      { review_status: 'READY_FOR_EXPORT', type: 'REIMBURSEMENT_EXPENSE_POST', amount: money(100.01) },
    ].map((i) => ({
      type: 'CARD_EXPENSE_POST',
      amount: money(171.75),
      posted_at: '2026-06-11T09:09:05.840865Z',
      ...i,
    }));
    const res = await api.post(INGEST, { items });
    expect([res.status, res.body]).toEqual([
      422,
      errorBody('RECEIPT_REQUIRED', {
        message: expect.stringContaining('2 items need a receipt to be created READY_FOR_EXPORT'),
        details: {
          records: [
            { path: '/items/1', ...shortfall },
            { path: '/items/4', ...shortfall, record_type: 'REIMBURSEMENT_EXPENSE_POST', amount_minor: 10001 },
          ],
        },
      }),
    ]);
    const stored = await t.ctx.db.direct
      .selectFrom('accounting_records')
      .select('id')
      .where('account_id', '=', api.accountId)
      .execute();
    expect(stored).toEqual([]);

    const fine = await api.post(INGEST, { items: [items[0], items[2], items[3]] });
    expect(fine.status, fine.text).toBe(200);
    expect(fine.body.items.map((r: any) => r.review_status)).toEqual([
      'READY_FOR_EXPORT',
      'READY_FOR_EXPORT',
      'REVIEW',
    ]);
  });
});
