import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS, INGEST, item, PEOPLE, RECORDS, type Item } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';

const SEARCH = '/internal/v1/accounting/records';
const OVERVIEW = '/internal/v1/accounting/overview';
const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;
const splitUrl = (id: string, line: string) => `/internal/v1/accounting/records/${id}/lines/${line}/split`;
const mergeUrl = (id: string) => `/internal/v1/accounting/records/${id}/lines/merge`;

/** reference/record-example.json (the shared contract's), verbatim: a record as the real API answers it. */
const EXAMPLE = {
  receipts: [],
  user: {
    id: 'cuuser_000000000000000000000900',
    first_name: 'Cardholder ',
    last_name: 'Three ',
    email: 'cardholder@example.invalid',
    role: 'ACCOUNT_ADMIN',
    status: 'ACTIVE',
    account_id: 'cuacc_000000000000000000000900',
  },
  vendor: {
    id: 'pmch_000000000000000000000900',
    name: 'Vendor H',
    contact_name: null,
    email: null,
    website: 'https://example.invalid/',
    phone: null,
  },
  memo: null,
  due_at: null,
  invoice_number: null,
  status: 'SUBMITTED',
  id: 'accr_000000000000000000000900',
  type: 'CARD_EXPENSE_POST',
  review_status: 'PREPARE',
  erp_posting_date: '2026-06-11T09:09:05.840865Z',
  updated_at: '2026-06-11T09:09:10.422192Z',
  version: 2,
  amount: { amount: 171.75, currency: 'USD' },
  source_type: 'CARD',
  source_id: 'expense_000000000000000000000900',
  posted_at: '2026-06-11T09:09:05.840Z',
  original_amount: { amount: 171.75, currency: 'USD' },
  billing_amount: { amount: 171.75, currency: 'USD' },
  line_items: [
    {
      memo: null,
      id: 'accrli_000000000000000000000901',
      type: 'DEBIT',
      amount: { amount: 171.75, currency: 'USD' },
      original_amount: { amount: 171.75, currency: 'USD' },
      billing_amount: { amount: 171.75, currency: 'USD' },
      accounting_field_values: [
        {
          svc_field_id: 'extended_field_0000000000000000000000001',
          remote_field_id: 'GL_ACCOUNT',
          field_name: 'GL Account',
          svc_field_value_id: 'efo_0000000000000000000000002',
          remote_field_value_id: null,
          field_value_name: '7500 Other G&A',
          type: 'IDENTIFIER',
        },
      ],
      amortization: null,
    },
    {
      memo: null,
      id: 'accrli_000000000000000000000902',
      type: 'CREDIT',
      amount: { amount: 171.75, currency: 'USD' },
      original_amount: { amount: 171.75, currency: 'USD' },
      accounting_field_values: [],
      amortization: null,
    },
  ],
};

/** svc's own member beyond the reference record (docs/accounting.md, "The record"). */
const SVC_ONLY = ['last_export_result'];

/** A JSON value's shape: its type at every level, objects by their keys, arrays element by element. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

/** The record's shape without svc's own members, which it must have. */
function referenceShape(record: Record<string, unknown>): unknown {
  expect(Object.keys(record).filter((k) => !(k in EXAMPLE))).toEqual(SVC_ONLY);
  return shape(Object.fromEntries(Object.entries(record).filter(([k]) => !SVC_ONLY.includes(k))));
}

const SINGLE_ENTRY_EXAMPLE = { ...EXAMPLE, line_items: [EXAMPLE.line_items[0]] };

/** The example as an ingestion item: every member ingestion takes, the line coded with the account's value. */
function ingestedExample(coding: { field_id: string; svc_id: string }): Item {
  const { account_id: _account, ...user } = EXAMPLE.user;
  const [line] = EXAMPLE.line_items;
  const { type, amount, posted_at, source_id, original_amount, billing_amount, erp_posting_date } = EXAMPLE;
  const { due_at, invoice_number, memo, vendor, receipts, review_status, status } = EXAMPLE;
  return {
    type,
    amount,
    posted_at,
    source_id,
    original_amount,
    billing_amount,
    erp_posting_date,
    due_at,
    invoice_number,
    memo,
    user,
    vendor,
    receipts,
    review_status,
    status,
    lines: [{ amount: line!.amount, memo: line!.memo, field_values: [coding], amortization: null }],
  };
}

async function exampleRecord(api: Api) {
  const gl = await api.newCoding('GL Account', [{ value: '7500 Other G&A' }], 'GL_ACCOUNT');
  const res = await api.post(INGEST, {
    items: [ingestedExample({ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id })],
  });
  expect(res.status, res.text).toBe(200);
  return { gl, record: res.body.items[0] };
}

describeEachDialect('accounting records: the members of the reference record', (t) => {
  // A clone of this repository has no ../shared: the check is reported skipped there, not passed.
  const shared = new URL('../../shared/reference/record-example.json', import.meta.url);
  it.skipIf(!existsSync(shared))('the shared reference is the example these tests hold to', () => {
    expect(JSON.parse(readFileSync(shared, 'utf8'))).toEqual(EXAMPLE);
  });

  it('a record ingested with every member answers the example key for key, with the same types at every level', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review']);
    const { record } = await exampleRecord(api);
    expect(referenceShape(record)).toEqual(shape(EXAMPLE));
    expect(record).toMatchObject({
      status: 'SUBMITTED',
      billing_amount: EXAMPLE.billing_amount,
      user: { ...EXAMPLE.user, account_id: api.accountId },
      vendor: EXAMPLE.vendor,
    });
    expect(record.line_items[0]).toMatchObject({
      billing_amount: EXAMPLE.line_items[0]!.billing_amount,
      amortization: null,
      accounting_field_values: [
        {
          ...EXAMPLE.line_items[0]!.accounting_field_values[0],
          svc_field_id: expect.any(String),
          svc_field_value_id: expect.any(String),
        },
      ],
    });
    expect(record.line_items[1]).not.toHaveProperty('billing_amount');

    // Every place a record is shown answers the same record, in both forms.
    const got = await api.get(`${RECORDS}/${record.id}`);
    expect(got.body).toEqual(record);
    const single = (await api.get(`${RECORDS}/${record.id}`, { single_entry: 'true' })).body;
    expect(referenceShape(single)).toEqual(shape(SINGLE_ENTRY_EXAMPLE));
    expect(single).toEqual({ ...record, line_items: [record.line_items[0]] });
    expect((await api.get(RECORDS, { ids: record.id })).body.items).toEqual([record]);
    expect((await api.get(RECORDS, { ids: record.id, single_entry: 'true' })).body.items).toEqual([single]);
    expect((await api.get(SEARCH, { vendor: 'Vendor H' })).body.items).toEqual([record]);
    expect((await api.get(SEARCH, { vendor: 'Vendor H', single_entry: 'true' })).body.items).toEqual([single]);
    expect((await api.get(OVERVIEW)).body.waiting_longest).toEqual([record]);

    // Edits keep every member: coding answers the record as get does.
    const coded = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: record.line_items[0].id, field_values: [] }],
    });
    expect(coded.status, coded.text).toBe(200);
    expect(referenceShape(coded.body.record)).toEqual(
      shape({
        ...EXAMPLE,
        line_items: [{ ...EXAMPLE.line_items[0], accounting_field_values: [] }, EXAMPLE.line_items[1]],
      }),
    );
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(coded.body.record);
  });

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
      { path: '/items/0/status', message: 'must be one of: DRAFT, SUBMITTED, APPROVED, PENDING, COMPLETED' },
      { path: '/items/1/lines/0/amortization', message: 'must be null: amortization schedules are not supported yet' },
      { path: '/items/2/user/account_id', message: 'is not allowed' },
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
