import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, INGEST, item, PEOPLE, RECORDS } from './support/accounting.js';
import { expectBalanced, ISO_MICROS } from './support/expect.js';
import { storedRecord, storedRecordRows } from './support/stored.js';

describeEachDialect('accounting ingestion /internal/v1/accounting/records', (t) => {
  it('creates a double-entry record with coded lines, as the reference record looks', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const gl = await api.newCoding(
      'GL Account',
      [{ value: '7500 Other G&A' }, { value: '6000 Travel', remote_id: 'GL-6000' }],
      'GL_ACCOUNT',
    );
    const record = await api.newRecord({
      source_id: 'expense_1',
      original_amount: { amount: 160, currency: 'EUR' },
      memo: 'Client lunch',
      ...PEOPLE,
      lines: [
        {
          amount: { amount: 100, currency: 'USD' },
          memo: 'food',
          field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
        },
        {
          amount: { amount: 71.75, currency: 'USD' },
          field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }],
        },
      ],
    });
    expect(record).toEqual({
      id: expect.stringMatching(/^accr_[0-9a-z]{26}$/),
      amount: { amount: 171.75, currency: 'USD' },
      original_amount: { amount: 160, currency: 'EUR' },
      billing_amount: { amount: 171.75, currency: 'USD' },
      type: 'CARD_EXPENSE_POST',
      source_type: 'CARD',
      source_id: 'expense_1',
      review_status: 'PREPARE',
      status: 'SUBMITTED',
      posted_at: '2026-06-11T09:09:05.840865Z',
      erp_posting_date: '2026-06-11T09:09:05.840865Z',
      due_at: null,
      updated_at: expect.stringMatching(ISO_MICROS),
      invoice_number: null,
      memo: 'Client lunch',
      line_items: [
        {
          id: expect.stringMatching(/^accrli_[0-9a-z]{26}$/),
          type: 'DEBIT',
          amount: { amount: 100, currency: 'USD' },
          original_amount: { amount: 93.16, currency: 'EUR' },
          billing_amount: { amount: 100, currency: 'USD' },
          memo: 'food',
          accounting_field_values: [
            {
              svc_field_id: gl.field.svc_id,
              remote_field_id: 'GL_ACCOUNT',
              svc_field_value_id: gl.values[0].svc_id,
              remote_field_value_id: null,
              field_name: 'GL Account',
              field_value_name: '7500 Other G&A',
              type: 'IDENTIFIER',
            },
          ],
          amortization: null,
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'DEBIT',
          amount: { amount: 71.75, currency: 'USD' },
          original_amount: { amount: 66.84, currency: 'EUR' },
          billing_amount: { amount: 71.75, currency: 'USD' },
          memo: null,
          accounting_field_values: [
            expect.objectContaining({
              svc_field_value_id: gl.values[1].svc_id,
              remote_field_value_id: 'GL-6000',
              field_value_name: '6000 Travel',
            }),
          ],
          amortization: null,
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'CREDIT',
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: { amount: 160, currency: 'EUR' },
          memo: null,
          accounting_field_values: [],
          amortization: null,
        },
      ],
      balancing_line_type: 'CREDIT',
      balancing_account_type: 'CARD_LIABILITY',
      ...PEOPLE,
      user: { ...PEOPLE.user, account_id: api.accountId },
      version: 1,
      last_export_result: null,
    });
    expectBalanced(record);
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
    const row = await storedRecord(t.ctx, api.accountId, record.id);
    expect(Number(row!.amount_minor)).toBe(17175);
    expect(Number(row!.original_amount_minor)).toBe(16000);
  });
});

const SOURCE: Record<string, string> = {
  CARD_EXPENSE_POST: 'CARD',
  CARD_EXPENSE_REFUND: 'CARD',
  CARD_EXPENSE_REPAYMENT: 'CARD',
  CARD_PAYMENT: 'CARD',
  CARD_PAYMENT_REFUND: 'CARD',
  REWARD_REDEMPTION: 'CARD',
  REIMBURSEMENT_EXPENSE_REPAYMENT: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_APPROVAL: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_POST: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: 'REIMBURSEMENT',
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: 'REIMBURSEMENT',
  BILL_EXPENSE: 'BILL',
  BILL_EXPENSE_PAYMENT: 'BILL',
  BILL_EXPENSE_CARD_PAYMENT: 'BILL',
  BILL_MONEY_MOVEMENT_PAYIN: 'BILL',
  INVOICE: 'BILL',
  INVOICE_PAYMENT: 'BILL',
};
// The economic side per type (src/modules/accounting/ledger.ts): expenses debit, refunds/repayments credit, payments move cash.
const ECONOMIC_DEBIT = new Set([
  'CARD_EXPENSE_POST',
  'CARD_PAYMENT_REFUND',
  'REIMBURSEMENT_EXPENSE_APPROVAL',
  'REIMBURSEMENT_EXPENSE_POST',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND',
  'INVOICE_PAYMENT',
  'BILL_EXPENSE',
]);

describeEachDialect('accounting ingestion: types and defaults', (t) => {
  it('maps each of the 19 types to its source_type and writes balanced lines, economic side first', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const dept = await api.newCoding('Department', [{ value: 'Sales' }]);
    const coded = { field_id: dept.field.svc_id, svc_id: dept.values[0].svc_id };
    const types = Object.keys(SOURCE);
    expect(types).toHaveLength(19);
    const res = await api.post(INGEST, {
      items: types.map((type) =>
        item({ type, lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [coded] }] }),
      ),
    });
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: any) => [r.type, r.source_type])).toEqual(types.map((type) => [type, SOURCE[type]]));
    for (const record of res.body.items) {
      expectBalanced(record);
      const economic = ECONOMIC_DEBIT.has(record.type) ? 'DEBIT' : 'CREDIT';
      expect(record.line_items.map((l: any) => [l.type, l.accounting_field_values.length])).toEqual([
        [economic, 1],
        [economic === 'DEBIT' ? 'CREDIT' : 'DEBIT', 0],
      ]);
      const single = await api.get(`${RECORDS}/${record.id}`, { single_entry: 'true' });
      expect(single.body.line_items).toEqual([record.line_items[0]]);
    }
    // updated_at distinct and increasing in request order within the batch
    const times = res.body.items.map((r: any) => r.updated_at);
    expect([...times].sort()).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
  });

  it('defaults: one uncoded line, PREPARE, erp_posting_date = posted_at; other currencies keep their minor units', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const [jpy, kwd] = await api.newRecords([
      {
        type: 'BILL_EXPENSE',
        amount: { amount: 1200, currency: 'JPY' },
        due_at: '2026-07-11T00:00:00+02:00',
        invoice_number: 'INV-1',
        erp_posting_date: '2026-06-12T00:00:00Z',
        review_status: 'REVIEW',
      },
      { amount: { amount: 1.234, currency: 'KWD' } },
    ]);
    expect(jpy).toMatchObject({
      amount: { amount: 1200, currency: 'JPY' },
      original_amount: null,
      due_at: '2026-07-10T22:00:00.000000Z',
      invoice_number: 'INV-1',
      erp_posting_date: '2026-06-12T00:00:00.000000Z',
      review_status: 'REVIEW',
      user: null,
      vendor: null,
      receipts: null,
    });
    expect(jpy.line_items.map((l: any) => [l.type, l.amount, l.original_amount, l.accounting_field_values])).toEqual([
      ['DEBIT', { amount: 1200, currency: 'JPY' }, null, []],
      ['CREDIT', { amount: 1200, currency: 'JPY' }, null, []],
    ]);
    expect(kwd.erp_posting_date).toBe('2026-06-11T09:09:05.840865Z');
    expect(kwd.review_status).toBe('PREPARE');
    expect(Number((await storedRecord(t.ctx, api.accountId, kwd.id))!.amount_minor)).toBe(1234);
  });
});

describeEachDialect('accounting writes with Idempotency-Key', (t) => {
  it('a retried ingestion or export report replays the first answer and writes nothing more', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const headers = { 'idempotency-key': 'ingest-1' };
    const first = await api.post(INGEST, { items: [item({ review_status: 'READY_FOR_EXPORT' })] }, headers);
    const again = await api.post(INGEST, { items: [item({ review_status: 'READY_FOR_EXPORT' })] }, headers);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await storedRecordRows(t.ctx, api.accountId)).toHaveLength(1);

    const report = { results: [{ accounting_record_id: first.body.items[0].id, success: { reference_id: 'erp_1' } }] };
    const exported = await api.post('/v3/accounting/records/export-results', report, { 'idempotency-key': 'export-1' });
    const replay = await api.post('/v3/accounting/records/export-results', report, { 'idempotency-key': 'export-1' });
    expect([exported.status, replay.status]).toEqual([200, 200]);
    expect(replay.body).toEqual(exported.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const row = await storedRecord(t.ctx, api.accountId, first.body.items[0].id);
    expect(Number(row!.version)).toBe(2);
    // without the key the same report is a second report, refused
    expect((await api.post('/v3/accounting/records/export-results', report)).status).toBe(422);
  });
});
