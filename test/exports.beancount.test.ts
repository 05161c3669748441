import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { EXPORTS, exportBook, exportChart, exported } from './support/exports.js';

describeEachDialect('exports: Beancount and CSV', (t) => {
  it('Beancount: options, accounts opened once, svc_id and dimensions as metadata, strings escaped', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const { expense, refund, bill } = await exportBook(api, await exportChart(api));
    const res = await api.post(EXPORTS, {
      format: 'beancount',
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:Amex-Corporate' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="svc-export-\d{4}-\d{2}-\d{2}\.beancount"$/);
    expect(res.text).toBe(
      [
        '; svc export, Beancount (docs/exports.md)',
        'option "operating_currency" "JPY"',
        'option "operating_currency" "USD"',
        '1970-01-01 commodity JPY',
        '1970-01-01 commodity USD',
        '1970-01-01 open Expenses:6010-Meals',
        '1970-01-01 open Expenses:7500-Other-G-A',
        '1970-01-01 open Liabilities:Accounts-Payable',
        '1970-01-01 open Liabilities:Amex-Corporate',
        '',
        '2026-06-11 * "Vendor H" "Team \\"dinner\\""',
        `  svc_id: "${expense.id}"`,
        '  svc_type: "CARD_EXPENSE_POST"',
        '  Expenses:6010-Meals  100.50 USD',
        '    department: "Sales, EMEA"',
        '    memo: "food"',
        '  Expenses:7500-Other-G-A  71.25 USD',
        '  Liabilities:Amex-Corporate  -171.75 USD',
        '',
        '2026-06-12 * "" "BILL_EXPENSE"',
        `  svc_id: "${bill.id}"`,
        '  svc_type: "BILL_EXPENSE"',
        '  invoice: "INV-7"',
        '  Expenses:7500-Other-G-A  20.00 USD',
        '  Liabilities:Accounts-Payable  -20.00 USD',
        '',
        '2026-06-12 * "" "CARD_EXPENSE_REFUND"',
        `  svc_id: "${refund.id}"`,
        '  svc_type: "CARD_EXPENSE_REFUND"',
        '  Expenses:6010-Meals  -1200 JPY',
        '  Liabilities:Amex-Corporate  1200 JPY',
        '',
      ].join('\n'),
    );
  });

  it('CSV: one row per posting, the chosen columns with reference first, RFC 4180 quoting; a date range', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const { expense } = await exportBook(api, await exportChart(api));
    const res = await api.post(EXPORTS, {
      format: 'csv',
      posted_from: '2026-06-11',
      posted_to: '2026-06-11',
      columns: [
        'date',
        'account',
        'account_code',
        'debit',
        'credit',
        'amount',
        'currency',
        'dimension:department',
        'payee',
        'narration',
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['x-svc-exported-count']).toBe('1');
    expect(res.text).toBe(
      [
        'reference,date,account,account_code,debit,credit,amount,currency,dimension:department,payee,narration',
        `${expense.id},2026-06-11,Expenses:6010 Meals,6010,100.50,,100.50,USD,"Sales, EMEA",Vendor H,"Team ""dinner"""`,
        `${expense.id},2026-06-11,Expenses:7500 Other G&A,7500,71.25,,71.25,USD,,Vendor H,"Team ""dinner"""`,
        `${expense.id},2026-06-11,Liabilities:Card,,,171.75,-171.75,USD,,Vendor H,"Team ""dinner"""`,
        '',
      ].join('\r\n'),
    );
    // The default columns; a day with nothing ready: the header alone.
    expect(await exported(api, { format: 'csv', posted_from: '2026-07-01' })).toBe(
      'reference,date,payee,narration,account_code,account_name,debit,credit,currency,memo\r\n',
    );
  });
});
