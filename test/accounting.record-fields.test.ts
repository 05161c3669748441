import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ADMIN, INGEST, RECORDS, type Item } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { codingUrl, SEARCH } from './support/review.js';

const OVERVIEW = '/internal/v1/accounting/overview';

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

/** svc's own members beyond the reference record (docs/accounting.md, "The record"), in the answer's order. */
const SVC_ONLY = ['balancing_line_type', 'balancing_account_type', 'last_export_result'];

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
});
