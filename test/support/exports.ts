import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { expect } from 'vitest';
import type { ApiClient } from './api.js';
import { PEOPLE } from './accounting.js';

export const EXPORTS = '/internal/v1/accounting/exports';
export const EXPORT_MAPPING = '/internal/v1/accounting/export-mapping';

/** A chart for exports: GL Account (remotely GL_ACCOUNT) with two accounts, and Department with one value. */
export async function exportChart(api: ApiClient) {
  const gl = await api.newCoding(
    'GL Account',
    [
      { value: '6010 Meals' },
      { value: '7500 Other G&A', remote_id: '7500' },
      { value: '1000 Operating Bank' },
      { value: '4000 Sales' },
    ],
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
    bank: code(gl, 2),
    revenue: code(gl, 3),
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

/** A small deterministic generator (mulberry32), so that a failing mix is the same mix again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const EXPONENT: Record<string, number> = { USD: 2, JPY: 0, KWD: 3 };

/**
 * `n` READY_FOR_EXPORT records of five types in USD, JPY and KWD (3 decimals), split over one to three coded
 * lines, with names that a journal must escape (quotes, semicolons, a pipe, a comma, a line break).
 */
export async function mixedBook(api: ApiClient, chart: ExportChart, n: number, seed = 33) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const items = Array.from({ length: n }, (_, i) => {
    const type = pick(['CARD_EXPENSE_POST', 'CARD_EXPENSE_REFUND', 'BILL_EXPENSE', 'CARD_PAYMENT', 'INVOICE']);
    const currency = pick(['USD', 'JPY', 'KWD']);
    const scale = 10 ** EXPONENT[currency]!;
    const parts = Array.from({ length: 1 + Math.floor(next() * 3) }, () => 1 + Math.floor(next() * 5_000_000));
    const total = parts.reduce((a, b) => a + b, 0);
    const gl =
      type === 'CARD_PAYMENT' ? [chart.bank] : type === 'INVOICE' ? [chart.revenue] : [chart.meals, chart.other];
    return {
      type,
      review_status: 'READY_FOR_EXPORT',
      amount: { amount: total / scale, currency },
      erp_posting_date: `2026-0${1 + (i % 9)}-1${i % 10}T12:00:00.000000Z`,
      vendor: { id: `v_${i}`, name: pick(['Uber; Eats', 'A | B "C"', 'Café, Ltd', 'Plain']) },
      memo: pick([null, 'line one\nline two', 'note; with, marks']),
      lines: parts.map((part) => ({
        amount: { amount: part / scale, currency },
        field_values: next() < 0.5 ? [pick(gl), chart.sales] : [pick(gl)],
      })),
    };
  });
  return api.newRecords(items);
}

/** The account a test expects for a record's line: its own statement of docs/exports.md's mapping. */
const ROOT: Record<string, string> = {
  CARD_EXPENSE_POST: 'Expenses',
  CARD_EXPENSE_REFUND: 'Expenses',
  BILL_EXPENSE: 'Expenses',
  CARD_PAYMENT: 'Assets',
  INVOICE: 'Income',
};
const BALANCING: Record<string, string> = {
  CARD_LIABILITY: 'Liabilities:Card',
  ACCOUNTS_PAYABLE: 'Liabilities:Accounts Payable',
  ACCOUNTS_RECEIVABLE: 'Assets:Accounts Receivable',
};

/**
 * Balances per account and currency in minor units, from records as svc answers them: debits positive. `name`
 * turns an hledger-style account name into the dialect's.
 */
export function svcBalances(records: any[], name: (account: string) => string = (a) => a): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const record of records) {
    for (const line of record.line_items) {
      const gl = line.accounting_field_values.find((v: any) => v.field_name === 'GL Account');
      const account = gl ? `${ROOT[record.type]}:${gl.field_value_name}` : BALANCING[record.balancing_account_type]!;
      const { currency } = line.amount;
      const minor = BigInt(Math.round(line.amount.amount * 10 ** EXPONENT[currency]!));
      const key = `${name(account)} ${currency}`;
      out.set(key, (out.get(key) ?? 0n) + (line.type === 'DEBIT' ? minor : -minor));
    }
  }
  for (const [key, value] of out) if (value === 0n) out.delete(key);
  return out;
}

/** "-1200", "100.50" → minor units as a BigInt, by the currency's exponent (no floating point). */
export function minorOf(text: string, currency: string): bigint {
  const [whole, fraction = ''] = text.trim().split('.');
  const exponent = EXPONENT[currency]!;
  const negative = whole!.startsWith('-');
  const digits = `${whole!.replace('-', '')}${fraction.padEnd(exponent, '0')}`;
  return negative ? -BigInt(digits) : BigInt(digits);
}

const runFile = promisify(execFile);
const SVC_BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

/** `svc export …`: its exit code and printed JSON lines. */
export async function svcExport(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; lines: any[] }> {
  const done = await runFile(process.execPath, [SVC_BIN, 'export', ...args], { env }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return {
    code: done.code,
    lines: done.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}
