import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { EXPORTS, exportBook, exportChart } from './support/exports.js';
import { errorBody } from './support/expect.js';

/** The ERP CSVs, each to its vendor's column specification (docs/exports.md, "ERP CSVs"). */
describeEachDialect('exports: QuickBooks Online, Xero and NetSuite CSVs', (t) => {
  const setUp = async () => {
    const api = await t.ctx.as([...ADMIN]);
    const book = await exportBook(api, await exportChart(api));
    return { api, ...book };
  };
  const onDay = { posted_from: '2026-06-11', posted_to: '2026-06-11' };
  // The default card account has no code: Xero's import needs one on every line, so the export names what to map.
  const XERO_CARD =
    'line 3 books the CARD_LIABILITY balancing account Liabilities:Card, which has no account code; Xero needs one: map CARD_LIABILITY to an account with its code (balancing_accounts of the export mapping, e.g. Liabilities:800-Card)';

  it('QuickBooks Online: Journal No (the id, cut to 21), MM/DD/YYYY, Currency, Memo (the id), account names, Debits/Credits, Name, Class, Location', async () => {
    const { api, expense } = await setUp();
    const res = await api.post(EXPORTS, { format: 'quickbooks', ...onDay });
    expect(res.status, res.text).toBe(200);
    // QuickBooks' Journal No holds 21 characters: the id's last 21 (its random part); the whole id is the Memo.
    const no = expense.id.slice(-21);
    expect(expense.id).toHaveLength(31);
    expect(res.text).toBe(
      [
        'Journal No,Journal Date,Currency,Memo,Account Name,Description,Debits,Credits,Name,Class,Location',
        `${no},06/11/2026,USD,${expense.id},Meals,food,100.50,,Vendor H,,`,
        `${no},06/11/2026,USD,${expense.id},Other G&A,"Team ""dinner""",71.25,,Vendor H,,`,
        `${no},06/11/2026,USD,${expense.id},Card,"Team ""dinner""",,171.75,Vendor H,,`,
        '',
      ].join('\r\n'),
    );
  });

  it('Xero: Narration opened by the record id, DD/MM/YYYY, account codes, signed Amount, tracking; the default card account, without a code, is refused naming what to map', async () => {
    const { api, expense } = await setUp();
    const refused = await api.post(EXPORTS, { format: 'xero', ...onDay });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(
      errorBody('EXPORT_REFUSED', {
        message: `1 record cannot be exported, so nothing was: ${expense.id} ${XERO_CARD}.`,
        details: {
          records: [
            {
              accounting_record_id: expense.id,
              review_status: 'READY_FOR_EXPORT',
              problems: [XERO_CARD],
            },
          ],
        },
      }),
    );
    const res = await api.post(EXPORTS, {
      format: 'xero',
      ...onDay,
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:800-Card' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(
      [
        'Narration,Date,Description,AccountCode,TaxRate,Amount,TrackingName1,TrackingOption1,TrackingName2,TrackingOption2',
        `${expense.id} Vendor H,11/06/2026,food,6010,Tax Exempt,100.50,Department,"Sales, EMEA",,`,
        `${expense.id} Vendor H,11/06/2026,"Team ""dinner""",7500,Tax Exempt,71.25,,,,`,
        `${expense.id} Vendor H,11/06/2026,"Team ""dinner""",800,Tax Exempt,-171.75,,,,`,
        '',
      ].join('\r\n'),
    );
  });

  it('NetSuite: External ID, number-and-name accounts, Department; a currency with 3 decimals is refused', async () => {
    const { api, expense, refund, bill } = await setUp();
    const res = await api.post(EXPORTS, { format: 'netsuite' });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(
      [
        'External ID,Date,Currency,Memo,Account,Debit,Credit,Line Memo,Name,Department,Class,Location',
        `${expense.id},06/11/2026,USD,"Team ""dinner""",6010 Meals,100.50,,food,Vendor H,"Sales, EMEA",,`,
        `${expense.id},06/11/2026,USD,"Team ""dinner""",7500 Other G&A,71.25,,,Vendor H,,,`,
        `${expense.id},06/11/2026,USD,"Team ""dinner""",Card,,171.75,,Vendor H,,,`,
        `${bill.id},06/12/2026,USD,BILL_EXPENSE,7500 Other G&A,20.00,,,,,,`,
        `${bill.id},06/12/2026,USD,BILL_EXPENSE,Accounts Payable,,20.00,,,,,`,
        `${refund.id},06/12/2026,JPY,CARD_EXPENSE_REFUND,6010 Meals,,1200,,,,,`,
        `${refund.id},06/12/2026,JPY,CARD_EXPENSE_REFUND,Card,1200,,,,,,`,
        '',
      ].join('\r\n'),
    );
    const kwd = await api.readyRecord({
      amount: { amount: 1.5, currency: 'KWD' },
      lines: [{ amount: { amount: 1.5, currency: 'KWD' }, field_values: [(await exportChart(api)).meals] }],
    });
    for (const [format, vendor] of [
      ['netsuite', 'NetSuite'],
      ['quickbooks', 'QuickBooks Online'],
    ]) {
      const refused = await api.post(EXPORTS, { format, accounting_record_ids: [kwd.id, expense.id] });
      expect(refused.status).toBe(422);
      expect(refused.body.details.records).toEqual([
        {
          accounting_record_id: kwd.id,
          review_status: 'READY_FOR_EXPORT',
          problems: [
            `its currency KWD has 3 decimals; ${vendor} takes at most 2`,
            ...(format === 'quickbooks'
              ? [
                  'its currency KWD is not the home currency USD (home_currency of the export mapping); QuickBooks Online books other currencies only with Multicurrency on (then set quickbooks_multicurrency of the export mapping)',
                ]
              : []),
          ],
        },
      ]);
    }
  });
});
