import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { EXPORTS, exportBook, exportChart } from './support/exports.js';
import { storedRecords } from './support/stored.js';

describeEachDialect('exports: hledger journal', (t) => {
  it('writes each READY_FOR_EXPORT record as one transaction: GL accounts, balancing account, tags, exact amounts', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const chart = await exportChart(api);
    const { expense, refund, bill } = await exportBook(api, chart);
    const before = await storedRecords(t.ctx, api.accountId);
    const res = await api.post(EXPORTS, { format: 'hledger' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="svc-export-\d{4}-\d{2}-\d{2}\.journal"$/,
    );
    expect(res.headers['x-svc-exported-count']).toBe('3');
    expect(res.text).toBe(
      [
        '; svc export, hledger journal (docs/exports.md)',
        'commodity 1000. JPY',
        'commodity 1000.00 USD',
        'account Expenses:6010 Meals',
        'account Expenses:7500 Other G&A',
        'account Liabilities:Accounts Payable',
        'account Liabilities:Card',
        '',
        `2026-06-11 * (${expense.id}) Vendor H | Team "dinner"  ; svc_record:${expense.id}, svc_type:CARD_EXPENSE_POST`,
        '    Expenses:6010 Meals  100.50 USD  ; department:Sales EMEA, memo:food',
        '    Expenses:7500 Other G&A  71.25 USD',
        '    Liabilities:Card  -171.75 USD',
        '',
        `2026-06-12 * (${bill.id}) BILL_EXPENSE  ; svc_record:${bill.id}, svc_type:BILL_EXPENSE, invoice:INV-7`,
        '    Expenses:7500 Other G&A  20.00 USD',
        '    Liabilities:Accounts Payable  -20.00 USD',
        '',
        `2026-06-12 * (${refund.id}) CARD_EXPENSE_REFUND  ; svc_record:${refund.id}, svc_type:CARD_EXPENSE_REFUND`,
        '    Expenses:6010 Meals  -1200 JPY',
        '    Liabilities:Card  1200 JPY',
        '',
      ].join('\n'),
    );
    // A download changes nothing.
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
  });
});
