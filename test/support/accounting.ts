import { expect } from 'vitest';
import type { Api, TestContext } from './context.js';

export const RECORDS = '/v3/accounting/records';
export const INGEST = '/internal/v1/accounting/records';
export const EXPORT_RESULTS = '/v3/accounting/records/export-results';
export const reviewUrl = (id: string) => `/internal/v1/accounting/records/${id}/review-status`;
export const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Scopes of a caller that can do everything the accounting tests need. */
export const ADMIN = [
  'accounting.record.admin',
  'accounting.record.write',
  'fields.write',
  'field_values.write',
] as const;

export type Item = Record<string, unknown>;

/** An ingestion item: a 171.75 USD card expense unless overridden. */
export function item(overrides: Item = {}): Item {
  return {
    type: 'CARD_EXPENSE_POST',
    amount: { amount: 171.75, currency: 'USD' },
    posted_at: '2026-06-11T09:09:05.840865Z',
    ...overrides,
  };
}

/** Creates records through the internal endpoint and returns them as answered. */
export async function newRecords(api: Api, items: Item[]): Promise<any[]> {
  const res = await api.post(INGEST, { items });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

export async function newRecord(api: Api, overrides: Item = {}): Promise<any> {
  return (await newRecords(api, [item(overrides)]))[0];
}

/** Moves a record along `path` of review states through the internal endpoint; returns the last answer. */
export async function moveTo(api: Api, id: string, path: string[]): Promise<any> {
  let body: any;
  for (const status of path) {
    const res = await api.post(reviewUrl(id), { review_status: status });
    expect(res.status, res.text).toBe(200);
    body = res.body;
  }
  return body;
}

/** A record already READY_FOR_EXPORT. */
export async function readyRecord(api: Api, overrides: Item = {}): Promise<any> {
  return newRecord(api, { review_status: 'READY_FOR_EXPORT', ...overrides });
}

/** A custom field with values, made through the API: returns the field and its values as answered. */
export async function newCoding(
  api: Api,
  name: string,
  values: { value: string; remote_id?: string }[],
  remoteId?: string,
) {
  const field = await api.create('/v1/fields', {
    name,
    group: 'ACCOUNTING',
    ...(remoteId ? { remote_id: remoteId } : {}),
  });
  expect(field.status, field.text).toBe(200);
  const created = await api.create(`/v1/fields/${field.body.svc_id}/values`, { items: values });
  expect(created.status, created.text).toBe(200);
  return { field: field.body, values: created.body.items as any[] };
}

/** Every stored record of the account (row and details), read directly, in (updated_at, id) order. */
function storedQuery(ctx: TestContext, accountId: string) {
  return ctx.db.direct
    .selectFrom('accounting_records as r')
    .innerJoin('accounting_record_details as d', (j) =>
      j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
    )
    .selectAll('r')
    .select(['d.line_items_json', 'd.user_json', 'd.vendor_json', 'd.receipts_json'])
    .where('r.account_id', '=', accountId)
    .orderBy('r.updated_at')
    .orderBy('r.id');
}

/** The stored row of a record with its details, read directly. */
export async function storedRecord(ctx: TestContext, accountId: string, id: string) {
  return storedQuery(ctx, accountId).where('r.id', '=', id).executeTakeFirst();
}

/** Every record of the account, stored state, in (updated_at, id) order. */
export async function storedRecords(ctx: TestContext, accountId: string) {
  return storedQuery(ctx, accountId).execute();
}

/** Checks the double-entry invariant: debits and credits each sum to the record's amount. */
export function expectBalanced(record: any): void {
  const cents = (lines: any[]) => lines.reduce((sum, l) => sum + Math.round(l.amount.amount * 10_000), 0);
  const debits = record.line_items.filter((l: any) => l.type === 'DEBIT');
  const credits = record.line_items.filter((l: any) => l.type === 'CREDIT');
  const total = Math.round(record.amount.amount * 10_000);
  expect(cents(debits)).toBe(total);
  expect(cents(credits)).toBe(total);
  for (const line of record.line_items) {
    expect(line.amount.amount).toBeGreaterThan(0);
    expect(line.amount.currency).toBe(record.amount.currency);
  }
}
