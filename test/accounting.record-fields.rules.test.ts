import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS, INGEST, item, PEOPLE, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { mergeUrl, splitUrl } from './support/review.js';

describeEachDialect('accounting records: the members of the reference record', (t) => {
  it("defaults: the type's source status, billing_amount = amount, user.account_id the record's account", async () => {
    const api = await t.ctx.as([...ADMIN]);
    const TYPES: Record<string, string> = {
      CARD_EXPENSE_POST: 'SUBMITTED',
      CARD_EXPENSE_REFUND: 'SUBMITTED',
      CARD_EXPENSE_REPAYMENT: 'COMPLETED',
      CARD_PAYMENT: 'COMPLETED',
      CARD_PAYMENT_REFUND: 'COMPLETED',
      REWARD_REDEMPTION: 'COMPLETED',
      REIMBURSEMENT_EXPENSE_APPROVAL: 'APPROVED',
      REIMBURSEMENT_EXPENSE_POST: 'APPROVED',
      REIMBURSEMENT_EXPENSE_REPAYMENT: 'COMPLETED',
      REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: 'COMPLETED',
      REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: 'COMPLETED',
      REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: 'COMPLETED',
      REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: 'COMPLETED',
      INVOICE: 'SUBMITTED',
      INVOICE_PAYMENT: 'COMPLETED',
      BILL_EXPENSE: 'SUBMITTED',
      BILL_EXPENSE_PAYMENT: 'COMPLETED',
      BILL_EXPENSE_CARD_PAYMENT: 'COMPLETED',
      BILL_MONEY_MOVEMENT_PAYIN: 'COMPLETED',
    };
    const records = await api.newRecords(Object.keys(TYPES).map((type) => ({ type, ...PEOPLE })));
    expect(records.map((r) => [r.type, r.status])).toEqual(Object.entries(TYPES));
    for (const r of records) {
      expect(r.billing_amount).toEqual(r.amount);
      expect(r.line_items.map((l: any) => [l.billing_amount, l.amortization])).toEqual([
        [r.amount, null],
        [undefined, null],
      ]);
      expect(r.user).toEqual({ ...PEOPLE.user, account_id: api.accountId });
    }
    const [bare] = await api.newRecords([{}]);
    expect([bare.user, bare.status, bare.billing_amount]).toEqual([null, 'SUBMITTED', bare.amount]);

    // A status the type's activity may be in; a billing amount equal to the amount is stored as none.
    const [pending, same] = await api.newRecords([
      { type: 'CARD_PAYMENT', status: 'PENDING' },
      { billing_amount: { amount: 171.75, currency: 'USD' }, status: 'DRAFT' },
    ]);
    expect([pending.status, same.status, same.billing_amount]).toEqual(['PENDING', 'DRAFT', same.amount]);
    const details = await t.ctx.db.direct
      .selectFrom('accounting_record_details')
      .select(['id', 'status', 'billing_currency', 'billing_amount_minor'])
      .where('account_id', '=', api.accountId)
      .where('id', 'in', [pending.id, same.id])
      .orderBy('id')
      .execute();
    expect(details).toEqual([
      { id: pending.id, status: 'PENDING', billing_currency: null, billing_amount_minor: null },
      { id: same.id, status: 'DRAFT', billing_currency: null, billing_amount_minor: null },
    ]);
  });

  it('a billing amount in another currency is apportioned over the economic lines, through split and merge', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review']);
    const usd = (amount: number) => ({ amount, currency: 'USD' });
    const eur = (amount: number) => ({ amount, currency: 'EUR' });
    const [record] = await api.newRecords([
      {
        amount: usd(100),
        billing_amount: eur(92.35),
        lines: [{ amount: usd(60) }, { amount: usd(40) }],
      },
    ]);
    expect(record.billing_amount).toEqual(eur(92.35));
    expect(record.line_items.map((l: any) => l.billing_amount)).toEqual([eur(55.41), eur(36.94), undefined]);
    const row = await t.ctx.db.direct
      .selectFrom('accounting_record_details')
      .select(['billing_currency', 'billing_amount_minor'])
      .where('account_id', '=', api.accountId)
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    expect([row.billing_currency, Number(row.billing_amount_minor)]).toEqual(['EUR', 9235]);

    const merged = await api.post(mergeUrl(record.id), {
      version: 1,
      line_ids: record.line_items.slice(0, 2).map((l: any) => l.id),
    });
    expect(merged.status, merged.text).toBe(200);
    const [line] = merged.body.record.line_items;
    expect(line).toMatchObject({ amount: usd(100), billing_amount: eur(92.35), amortization: null });
    const split = await api.post(splitUrl(record.id, line.id), {
      version: 2,
      parts: [{ amount: usd(33.33) }, { amount: usd(33.33) }, { amount: usd(33.34) }],
    });
    expect(split.status, split.text).toBe(200);
    expect(split.body.record.line_items.map((l: any) => [l.amount, l.billing_amount, l.amortization])).toEqual([
      [usd(33.33), eur(30.78), null],
      [usd(33.33), eur(30.78), null],
      [usd(33.34), eur(30.79), null],
      [usd(100), undefined, null],
    ]);
    expect(split.body.record.billing_amount).toEqual(eur(92.35));
  });

  it('refuses what it cannot keep: a status the type does not allow, an amortization schedule, a user account_id', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const res = await api.post(INGEST, {
      items: [
        item({ type: 'CARD_PAYMENT', status: 'SUBMITTED' }),
        item({ type: 'REIMBURSEMENT_EXPENSE_APPROVAL', status: 'DRAFT' }),
        item({ billing_amount: { amount: 1.005, currency: 'USD' } }),
        item({ billing_amount: { amount: 10, currency: 'XXX' } }),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            { path: '/items/0/status', message: 'must be one of: COMPLETED, PENDING for CARD_PAYMENT' },
            { path: '/items/1/status', message: 'must be one of: APPROVED for REIMBURSEMENT_EXPENSE_APPROVAL' },
            { path: '/items/2/billing_amount/amount', message: 'must have at most 2 decimal places for USD' },
            { path: '/items/3/billing_amount/currency', message: 'must be an ISO 4217 currency code' },
          ],
        },
      }),
    );
    const schema = await api.post(INGEST, {
      items: [
        item({ status: 'SETTLED' }),
        item({
          lines: [{ amount: { amount: 171.75, currency: 'USD' }, amortization: { start: '2026-07-01', months: 12 } }],
        }),
        item({ user: { ...PEOPLE.user, account_id: 'acct_other' } }),
      ],
    });
    expect(schema.status).toBe(400);
    expect(schema.body.details.errors).toEqual([
      {
        path: '/items/0/status',
        message: 'must be one of: DRAFT, SUBMITTED, APPROVED, PENDING, COMPLETED (got "SETTLED")',
      },
      { path: '/items/1/lines/0/amortization', message: 'must be null: amortization schedules are not supported yet' },
      { path: '/items/2/user/account_id', message: expect.any(String) },
    ]);
    expect((await api.get(RECORDS)).body.items).toEqual([]);
  });

  it('an exported record keeps the members; the export report does not touch them', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const [record] = await api.newRecords([{ review_status: 'READY_FOR_EXPORT', status: 'APPROVED', ...PEOPLE }]);
    const res = await api.post(EXPORT_RESULTS, {
      results: [{ accounting_record_id: record.id, success: { reference_id: 'erp_1' } }],
    });
    expect(res.status).toBe(200);
    const exported = (await api.get(`${RECORDS}/${record.id}`)).body;
    const { version: _version, updated_at: _updated, review_status, last_export_result, ...rest } = exported;
    const { version: _v, updated_at: _u, review_status: _r, last_export_result: _l, ...before } = record;
    expect(rest).toEqual(before);
    expect([review_status, last_export_result.status]).toEqual(['EXPORTED', 'SUCCESS']);
  });
});
