import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import {
  ADMIN,
  expectBalanced,
  INGEST,
  ISO_MICROS,
  item,
  newCoding,
  newRecord,
  newRecords,
  RECORDS,
  storedRecord,
} from './support/accounting.js';

describeEachDialect('accounting ingestion /internal/v1/accounting/records', (t) => {
  it('creates a double-entry record with coded lines, as the reference record looks', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const gl = await newCoding(
      api,
      'GL Account',
      [{ value: '7500 Other G&A' }, { value: '6000 Travel', remote_id: 'GL-6000' }],
      'GL_ACCOUNT',
    );
    const record = await newRecord(api, {
      source_id: 'expense_1',
      original_amount: { amount: 160, currency: 'EUR' },
      memo: 'Client lunch',
      user: {
        id: 'cuuser_1',
        email: 'a@example.invalid',
        first_name: 'Ada',
        last_name: 'L',
        role: 'EMPLOYEE',
        status: 'ACTIVE',
      },
      vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
      receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
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
      type: 'CARD_EXPENSE_POST',
      source_type: 'CARD',
      source_id: 'expense_1',
      review_status: 'PREPARE',
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
          memo: 'food',
          accounting_field_values: [
            {
              svc_field_id: gl.field.svc_id,
              remote_field_id: 'GL_ACCOUNT',
              svc_field_value_id: gl.values[0].svc_id,
              remote_field_value_id: null,
              field_name: 'GL Account',
              field_value_name: '7500 Other G&A',
            },
          ],
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'DEBIT',
          amount: { amount: 71.75, currency: 'USD' },
          original_amount: { amount: 66.84, currency: 'EUR' },
          memo: null,
          accounting_field_values: [
            expect.objectContaining({
              svc_field_value_id: gl.values[1].svc_id,
              remote_field_value_id: 'GL-6000',
              field_value_name: '6000 Travel',
            }),
          ],
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'CREDIT',
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: { amount: 160, currency: 'EUR' },
          memo: null,
          accounting_field_values: [],
        },
      ],
      receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
      user: {
        id: 'cuuser_1',
        email: 'a@example.invalid',
        first_name: 'Ada',
        last_name: 'L',
        role: 'EMPLOYEE',
        status: 'ACTIVE',
      },
      vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
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

describeEachDialect('accounting ingestion: types, defaults, validation', (t) => {
  it('maps each of the 19 types to its source_type and writes balanced lines, economic side first', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const dept = await newCoding(api, 'Department', [{ value: 'Sales' }]);
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
    const [jpy, kwd] = await newRecords(api, [
      item({
        type: 'BILL_EXPENSE',
        amount: { amount: 1200, currency: 'JPY' },
        due_at: '2026-07-11T00:00:00+02:00',
        invoice_number: 'INV-1',
        erp_posting_date: '2026-06-12T00:00:00Z',
        review_status: 'REVIEW',
      }),
      item({ amount: { amount: 1.234, currency: 'KWD' } }),
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

  it('reports every problem of a batch at once and writes nothing', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const res = await api.post(INGEST, {
      items: [
        item({ amount: { amount: 1.005, currency: 'USD' } }),
        item({ amount: { amount: 10, currency: 'XXX' } }),
        item({ amount: { amount: 1.5, currency: 'JPY' }, review_status: 'EXPORTED' }),
        item({ lines: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 70, currency: 'USD' } }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'EUR' } }] }),
        item({ type: 'NOPE', amount: { amount: -1, currency: 'USD' }, posted_at: '2026-06-11T09:09:05', status: 'X' }),
        item({
          lines: [
            {
              amount: { amount: 171.75, currency: 'USD' },
              field_values: [
                { field_id: 'f', svc_id: 'a' },
                { field_id: 'f', svc_id: 'b' },
              ],
            },
          ],
        }),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('INVALID_REQUEST');
    // schema problems first (the service checks run only on a well-formed body)
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/items/2/review_status', message: 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT' },
        { path: '/items/5/type', message: expect.stringMatching(/^must be one of: CARD_EXPENSE_POST, /) },
        { path: '/items/5/amount/amount', message: 'must be > 0' },
        { path: '/items/5/posted_at', message: 'must be an RFC 3339 date-time with a time zone' },
        { path: '/items/5/status', message: 'is not allowed' },
      ]),
    );
    const fixedSchema = await api.post(INGEST, {
      items: [
        item({ amount: { amount: 1.005, currency: 'USD' } }),
        item({ amount: { amount: 10, currency: 'XXX' } }),
        item({ amount: { amount: 1.5, currency: 'JPY' } }),
        item({ lines: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 70, currency: 'USD' } }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'EUR' } }] }),
        item({
          lines: [
            {
              amount: { amount: 171.75, currency: 'USD' },
              field_values: [
                { field_id: 'f', svc_id: 'a' },
                { field_id: 'f', svc_id: 'b' },
              ],
            },
          ],
        }),
        item(),
      ],
    });
    expect(fixedSchema.status).toBe(400);
    expect(fixedSchema.body.details.errors).toEqual([
      { path: '/items/0/amount/amount', message: 'must have at most 2 decimal places for USD' },
      { path: '/items/1/amount/currency', message: 'must be an ISO 4217 currency code' },
      { path: '/items/2/amount/amount', message: 'must be a whole number for JPY' },
      { path: '/items/3/lines', message: "must sum to the record's amount 171.75 USD, not 170.00 USD" },
      { path: '/items/4/lines/0/amount/currency', message: "must be USD, the record's currency" },
      { path: '/items/5/lines/0/field_values/1/field_id', message: 'codes the same field twice in one line' },
    ]);
    expect(
      await t.ctx.db.direct
        .selectFrom('accounting_records')
        .select('id')
        .where('account_id', '=', api.accountId)
        .execute(),
    ).toEqual([]);
  });

  it("unknown field values, or another account's, → 404 naming them, nothing written", async () => {
    const api = await t.ctx.as([...ADMIN]);
    const other = await t.ctx.as([...ADMIN]);
    const mine = await newCoding(api, 'Class', [{ value: 'A' }]);
    const theirs = await newCoding(other, 'Class', [{ value: 'B' }]);
    const wrongField = await newCoding(api, 'Location', [{ value: 'NYC' }]);
    const refs = [
      { field_id: mine.field.svc_id, svc_id: mine.values[0].svc_id },
      { field_id: theirs.field.svc_id, svc_id: theirs.values[0].svc_id },
      { field_id: mine.field.svc_id, svc_id: wrongField.values[0].svc_id },
    ];
    const res = await api.post(INGEST, {
      items: [
        item(),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [refs[0]] }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: refs.slice(1, 2) }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: refs.slice(2) }] }),
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error_code: 'NOT_FOUND',
      message: expect.stringContaining(theirs.values[0].svc_id),
      details: { not_found_field_values: [refs[1], refs[2]] },
      request_id: expect.any(String),
    });
    expect(
      await t.ctx.db.direct
        .selectFrom('accounting_records')
        .select('id')
        .where('account_id', '=', api.accountId)
        .execute(),
    ).toEqual([]);
  });

  it('needs the admin scope; 1 to 1000 items', async () => {
    const reader = await t.ctx.as(['accounting.record.write']);
    expect((await reader.post(INGEST, { items: [item()] })).status).toBe(403);
    const api = await t.ctx.as([...ADMIN]);
    expect((await api.post(INGEST, { items: [] })).body.details.errors).toEqual([
      { path: '/items', message: 'must NOT have fewer than 1 items' },
    ]);
    const many = await api.post(INGEST, { items: Array.from({ length: 1001 }, () => item()) });
    expect(many.body.details.errors).toEqual([{ path: '/items', message: 'must NOT have more than 1000 items' }]);
    const full = await api.post(INGEST, { items: Array.from({ length: 1000 }, () => item()) });
    expect(full.status).toBe(200);
    expect(full.body.items).toHaveLength(1000);
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
    const rows = await t.ctx.db.direct
      .selectFrom('accounting_records')
      .select('id')
      .where('account_id', '=', api.accountId)
      .execute();
    expect(rows).toHaveLength(1);

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
