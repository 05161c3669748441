import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import { PEOPLE } from './accounting.js';

export const EXPORTS = '/internal/v1/accounting/exports';

/** A chart for exports: GL Account (remotely GL_ACCOUNT) with two accounts, and Department with one value. */
export async function exportChart(api: ApiClient) {
  const gl = await api.newCoding(
    'GL Account',
    [{ value: '6010 Meals' }, { value: '7500 Other G&A', remote_id: '7500' }],
    'GL_ACCOUNT',
  );
  const dept = await api.newCoding('Department', [{ value: 'Sales, EMEA' }]);
  const code = (field: { field: any; values: any[] }, i: number) => ({
    field_id: field.field.svc_id,
    svc_id: field.values[i].svc_id,
  });
  return {
    gl,
    dept,
    meals: code(gl, 0),
    other: code(gl, 1),
    sales: code(dept, 0),
  };
}
export type ExportChart = Awaited<ReturnType<typeof exportChart>>;

/**
 * Three READY_FOR_EXPORT records over two days and two currencies: a card expense split over two GL accounts
 * (one line with a department and a memo), a card refund in JPY, and a bill in USD.
 */
export async function exportBook(api: ApiClient, chart: ExportChart) {
  const [expense, refund, bill] = await api.newRecords([
    {
      review_status: 'READY_FOR_EXPORT',
      amount: { amount: 171.75, currency: 'USD' },
      erp_posting_date: '2026-06-11T09:09:05.840865Z',
      vendor: PEOPLE.vendor,
      memo: 'Team "dinner"',
      lines: [
        { amount: { amount: 100.5, currency: 'USD' }, memo: 'food', field_values: [chart.meals, chart.sales] },
        { amount: { amount: 71.25, currency: 'USD' }, field_values: [chart.other] },
      ],
    },
    {
      type: 'CARD_EXPENSE_REFUND',
      review_status: 'READY_FOR_EXPORT',
      amount: { amount: 1200, currency: 'JPY' },
      erp_posting_date: '2026-06-12T23:59:59.000000Z',
      lines: [{ amount: { amount: 1200, currency: 'JPY' }, field_values: [chart.meals] }],
    },
    {
      type: 'BILL_EXPENSE',
      review_status: 'READY_FOR_EXPORT',
      amount: { amount: 20, currency: 'USD' },
      erp_posting_date: '2026-06-12T08:00:00.000000Z',
      invoice_number: 'INV-7',
      lines: [{ amount: { amount: 20, currency: 'USD' }, field_values: [chart.other] }],
    },
  ]);
  return { expense, refund, bill };
}

/** The file an export answers, with its status checked. */
export async function exported(api: ApiClient, body: Record<string, unknown>): Promise<string> {
  const res = await api.post(EXPORTS, body);
  expect(res.status, res.text).toBe(200);
  return res.text;
}
