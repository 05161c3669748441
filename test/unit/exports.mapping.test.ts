import { describe, expect, it } from 'vitest';
import {
  accountFromPath,
  decimal,
  DEFAULT_MAPPING,
  dimensionKey,
  entryOf,
  glAccountOf,
  pathOf,
  type Entry,
} from '../../src/modules/exports/exports.mapping.js';
import { XERO } from '../../src/modules/exports/exports.vendor-csv.js';
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

function row(currency: string, amounts: number[], glName = '6010 Meals'): ShownRecordRow {
  const total = amounts.reduce((a, b) => a + b, 0);
  const line = (amount: number, type: 'DEBIT' | 'CREDIT', coded: boolean, id: string) => ({
    id,
    type,
    amount: { amount, currency },
    original_amount: null,
    memo: null,
    accounting_field_values: coded ? [gl(glName)] : [],
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

  it('reads a GL value as code and name: its leading number is the code, else its remote id', () => {
    expect(glAccountOf(gl('7500  Other G&A'), 'Expenses')).toEqual({
      root: 'Expenses',
      code: '7500',
      name: 'Other G&A',
    });
    // A seed's or an ERP's remote key never hides the chart number the imports match.
    expect(glAccountOf(gl('6010 Travel', 'GL_ACCOUNT-a1b2c3-1'), 'Expenses')).toEqual({
      root: 'Expenses',
      code: '6010',
      name: 'Travel',
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

  it('Xero: an account without a code is refused, naming the balancing type to map or the GL value to number', () => {
    const refused = (glName: string, mapping = DEFAULT_MAPPING) => {
      const entry = entryOf(row('USD', [1], glName), mapping) as Entry;
      return XERO.refuse(entry, mapping);
    };
    expect(refused('6010 Meals')).toEqual([
      'line 2 books the CARD_LIABILITY balancing account Liabilities:Card, which has no account code; Xero needs one: map CARD_LIABILITY to an account with its code (balancing_accounts of the export mapping, e.g. Liabilities:800-Card)',
    ]);
    const card = accountFromPath('Liabilities:800-Card')!;
    const mapped = {
      ...DEFAULT_MAPPING,
      balancingAccounts: { ...DEFAULT_MAPPING.balancingAccounts, CARD_LIABILITY: card },
    };
    expect(refused('6010 Meals', mapped)).toEqual([]);
    expect(refused('Meals', mapped)).toEqual([
      'line 1\'s GL account Meals has no account code; Xero needs one: a GL value opened by its number ("6010 Meals") or with a remote id',
    ]);
    expect([card, pathOf(card), pathOf(accountFromPath('Liabilities:Reimbursements Payable')!)]).toEqual([
      { root: 'Liabilities', code: '800', name: 'Card' },
      'Liabilities:800-Card',
      'Liabilities:Reimbursements Payable',
    ]);
  });

  it('dates an entry by its UTC day, at both ends of the day', () => {
    const at = (iso: string) => {
      const r = row('USD', [1]);
      return (entryOf({ ...r, erp_posting_date: Date.parse(iso) * 1000 + 999 }, DEFAULT_MAPPING) as Entry).date;
    };
    expect([at('2026-06-11T00:00:00Z'), at('2026-06-11T23:59:59.999Z'), at('1969-12-31T23:59:59Z')]).toEqual([
      '2026-06-11',
      '2026-06-11',
      '1969-12-31',
    ]);
  });
});
