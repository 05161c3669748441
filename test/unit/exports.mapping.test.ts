import { describe, expect, it } from 'vitest';
import {
  decimal,
  DEFAULT_MAPPING,
  dimensionKey,
  entryOf,
  glAccountOf,
} from '../../src/modules/exports/exports.mapping.js';
import type { ShownRecordRow } from '../../src/modules/accounting/export-selection.service.js';

const gl = (name: string, remote: string | null = null) => ({
  svc_field_id: 'f_gl',
  remote_field_id: 'GL_ACCOUNT',
  svc_field_value_id: 'v',
  remote_field_value_id: remote,
  field_name: 'GL Account',
  field_value_name: name,
  type: 'IDENTIFIER' as const,
});

function row(currency: string, amounts: number[]): ShownRecordRow {
  const total = amounts.reduce((a, b) => a + b, 0);
  const line = (amount: number, type: 'DEBIT' | 'CREDIT', coded: boolean, id: string) => ({
    id,
    type,
    amount: { amount, currency },
    original_amount: null,
    memo: null,
    accounting_field_values: coded ? [gl('6010 Meals')] : [],
    amortization: null,
  });
  const shown: ShownRecordRow = {
    id: 'accr_1',
    type: 'CARD_EXPENSE_POST',
    source_type: 'CARD',
    source_id: null,
    review_status: 'READY_FOR_EXPORT',
    currency,
    amount_minor: 0,
    original_currency: null,
    original_amount_minor: null,
    posted_at: 0,
    erp_posting_date: Date.UTC(2026, 0, 2) * 1000,
    due_at: null,
    invoice_number: null,
    memo: null,
    last_export_json: null,
    version: 1,
    updated_at: 0,
    line_items_json: JSON.stringify([
      ...amounts.map((a, i) => line(a, 'DEBIT', true, `l${i}`)),
      line(total, 'CREDIT', false, 'lb'),
    ]),
    user_json: null,
    vendor_json: null,
    receipts_json: null,
    status: 'SUBMITTED',
    billing_currency: null,
    billing_amount_minor: null,
  };
  return shown;
}

describe('exports mapping', () => {
  it('prints minor units with exactly the currency’s decimals, by string arithmetic', () => {
    expect(decimal(17175, 2)).toBe('171.75');
    expect(decimal(-5, 2)).toBe('-0.05');
    expect(decimal(5000, 3)).toBe('5.000');
    expect(decimal(-1200, 0)).toBe('-1200');
    expect(decimal(Number.MAX_SAFE_INTEGER, 2)).toBe('90071992547409.91');
  });

  it('reads a GL value as code and name; a remote id is the code', () => {
    expect(glAccountOf(gl('7500  Other G&A'), 'Expenses')).toEqual({
      root: 'Expenses',
      code: '7500',
      name: 'Other G&A',
    });
    expect(glAccountOf(gl('Travel', 'GL-9'), 'Expenses')).toEqual({ root: 'Expenses', code: 'GL-9', name: 'Travel' });
    expect(glAccountOf(gl('Travel'), 'Assets')).toEqual({ root: 'Assets', code: null, name: 'Travel' });
    expect(dimensionKey('Cost Center')).toBe('cost-center');
    expect(dimensionKey('2nd Class')).toBe('nd-class');
  });

  it('refuses a currency without a known precision and an amount its currency cannot hold, naming each line', () => {
    expect(entryOf(row('XAU', [1]), DEFAULT_MAPPING)).toEqual({
      accounting_record_id: 'accr_1',
      review_status: 'READY_FOR_EXPORT',
      problems: ['its currency XAU has no known precision (ISO 4217)'],
    });
    expect(entryOf(row('JPY', [10.5, 1]), DEFAULT_MAPPING)).toEqual({
      accounting_record_id: 'accr_1',
      review_status: 'READY_FOR_EXPORT',
      problems: [
        'line 1 (l0): amount must be a whole number for JPY',
        'line 3 (lb): amount must be a whole number for JPY',
      ],
    });
    const entry = entryOf(row('KWD', [1.005, 2]), DEFAULT_MAPPING);
    expect(entry).toMatchObject({ date: '2026-01-02', narration: 'CARD_EXPENSE_POST' });
    expect('postings' in entry && entry.postings.map((p) => [p.side, p.minor, p.exponent])).toEqual([
      ['DEBIT', 1005, 3],
      ['DEBIT', 2000, 3],
      ['CREDIT', 3005, 3],
    ]);
  });
});
