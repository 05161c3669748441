import { ADMIN } from './accounting.js';
import type { Api } from './api.js';
import type { TestContext } from './context.js';
import { storedRecord } from './stored.js';

/** The review routes (svc's own, under /internal/v1/accounting): search, moves, coding, line edits, history. */
export const SEARCH = '/internal/v1/accounting/records';
export const BULK = '/internal/v1/accounting/records/review-status';
export const REQUIRED = '/internal/v1/accounting/required-coding';
export const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;
export const splitUrl = (id: string, line: string) => `/internal/v1/accounting/records/${id}/lines/${line}/split`;
export const mergeUrl = (id: string) => `/internal/v1/accounting/records/${id}/lines/merge`;
export const historyUrl = (id: string) => `/internal/v1/accounting/records/${id}/history`;

/** Scopes of a caller that reviews as well as makes records (ADMIN's factories). */
export const REVIEWER = [...ADMIN, 'accounting.record.review', 'accounting.record.read'] as const;

export const usd = (amount: number) => ({ amount, currency: 'USD' });
export const money = (amount: number, currency = 'USD') => ({ amount, currency });

/** The ids of a page of records, in order. */
export const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((x) => x.id);

/** A line's coding as records (and events) show it. */
export const coding = (field: any, value: any) => ({
  svc_field_id: field.svc_id,
  remote_field_id: field.remote_id,
  svc_field_value_id: value.svc_id,
  remote_field_value_id: value.remote_id,
  field_name: field.name,
  field_value_name: value.value,
  type: 'IDENTIFIER',
});

/** A chart of two fields (GL with remote ids, Department), and a record under review with its economic line. */
export async function chartAndRecord(ctx: TestContext, overrides: Record<string, unknown> = {}) {
  const api = await ctx.as(REVIEWER);
  const gl = await api.newCoding(
    'GL Account',
    [
      { value: '6010 Meals', remote_id: 'GL-6010' },
      { value: '6020 Travel', remote_id: 'GL-6020' },
      { value: '6999 Old', remote_id: 'GL-6999' },
    ],
    'GL',
  );
  const dept = await api.newCoding('Department', [{ value: 'Sales' }, { value: 'Ops' }]);
  const record = await api.newRecord({
    review_status: 'REVIEW',
    original_amount: { amount: 150, currency: 'EUR' },
    ...overrides,
  });
  const economic = record.line_items[0];
  const balancing = record.line_items[1];
  return { api, gl, dept, record, economic, balancing };
}

/** What must not move when a request is refused: the stored record and its history. */
export async function recordAndHistory(ctx: TestContext, api: Api, id: string) {
  return { stored: await storedRecord(ctx, api.accountId, id), history: (await api.get(historyUrl(id))).body };
}
