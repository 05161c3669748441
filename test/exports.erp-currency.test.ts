import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { EXPORT_MAPPING, EXPORTS, exportBook, exportChart } from './support/exports.js';
import { errorBody } from './support/expect.js';
import { storedRecords } from './support/stored.js';

const QBO_EUR =
  'its currency EUR is not the home currency USD (home_currency of the export mapping); QuickBooks Online books other currencies only with Multicurrency on (then set quickbooks_multicurrency of the export mapping)';
const xeroForeign = (currency: string, home: string) =>
  `its currency ${currency} is not the home currency ${home} (home_currency of the export mapping); Xero imports manual journals in the organisation's base currency only`;

/**
 * The ERP CSVs and currencies (docs/exports.md, "ERP CSVs"): QuickBooks Online carries each entry's currency when
 * the company has Multicurrency; Xero's manual journals are in the base currency only. Never booked silently as
 * the home currency; refused, all or nothing, naming each record.
 */
describeEachDialect('exports: currencies in the ERP CSVs, and Xero’s 300 lines', (t) => {
  const setUp = async () => {
    const api = await t.ctx.as([...ADMIN]);
    const chart = await exportChart(api);
    const book = await exportBook(api, chart);
    const eur = await api.readyRecord({
      amount: { amount: 80, currency: 'EUR' },
      erp_posting_date: '2026-06-13T10:00:00Z',
      lines: [{ amount: { amount: 80, currency: 'EUR' }, field_values: [chart.meals] }],
    });
    return { api, chart, eur, ...book };
  };
  const cardCode = { CARD_LIABILITY: 'Liabilities:800-Card' };

  it('QuickBooks Online: an entry outside the home currency is refused until Multicurrency is set, then written in its currency', async () => {
    const { api, eur, expense } = await setUp();
    const before = await storedRecords(t.ctx, api.accountId);
    const refused = await api.post(EXPORTS, { format: 'quickbooks', accounting_record_ids: [expense.id, eur.id] });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(
      errorBody('EXPORT_REFUSED', {
        message: `1 record cannot be exported, so nothing was: ${eur.id} ${QBO_EUR}.`,
        details: {
          records: [{ accounting_record_id: eur.id, review_status: 'READY_FOR_EXPORT', problems: [QBO_EUR] }],
        },
      }),
    );
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);

    const set = await api.put(EXPORT_MAPPING, { quickbooks_multicurrency: true });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ home_currency: 'USD', quickbooks_multicurrency: true });
    const res = await api.post(EXPORTS, { format: 'quickbooks', accounting_record_ids: [eur.id] });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(
      [
        'Journal No,Journal Date,Currency,Memo,Account Name,Description,Debits,Credits,Name,Class,Location',
        `${eur.id.slice(-21)},06/13/2026,EUR,${eur.id},Meals,CARD_EXPENSE_POST,80.00,,,,`,
        `${eur.id.slice(-21)},06/13/2026,EUR,${eur.id},Card,CARD_EXPENSE_POST,,80.00,,,`,
        '',
      ].join('\r\n'),
    );
  });

  it('Xero: only the home currency (USD by default, else the mapping’s), each other record refused naming its currency', async () => {
    const { api, eur, refund, expense } = await setUp();
    const refused = await api.post(EXPORTS, {
      format: 'xero',
      accounting_record_ids: [expense.id, refund.id, eur.id],
      balancing_accounts: cardCode,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.details.records).toEqual([
      { accounting_record_id: refund.id, review_status: 'READY_FOR_EXPORT', problems: [xeroForeign('JPY', 'USD')] },
      { accounting_record_id: eur.id, review_status: 'READY_FOR_EXPORT', problems: [xeroForeign('EUR', 'USD')] },
    ]);

    // An organisation whose base currency is the euro: the euro record goes in, the dollar ones are refused.
    expect((await api.put(EXPORT_MAPPING, { home_currency: 'EUR' })).status).toBe(200);
    const inEuro = await api.post(EXPORTS, {
      format: 'xero',
      accounting_record_ids: [eur.id],
      balancing_accounts: cardCode,
    });
    expect(inEuro.status, inEuro.text).toBe(200);
    expect(inEuro.text.split('\r\n')[1]).toBe(
      `${eur.id} CARD_EXPENSE_POST,13/06/2026,CARD_EXPENSE_POST,6010,Tax Exempt,80.00,,,,`,
    );
    const usd = await api.post(EXPORTS, {
      format: 'xero',
      accounting_record_ids: [expense.id],
      balancing_accounts: cardCode,
    });
    expect(usd.body.details.records[0].problems).toEqual([xeroForeign('USD', 'EUR')]);

    // A home currency svc does not know is refused, by its member.
    const bad = await api.put(EXPORT_MAPPING, { home_currency: 'XYZ' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors).toEqual([
      { path: '/home_currency', message: 'is not an ISO 4217 currency svc knows' },
    ]);
    expect((await api.get(EXPORT_MAPPING)).body.home_currency).toBe('EUR');
  });

  it('Xero: a file over 300 lines is refused whole, saying how many records fit; 300 lines pass', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const chart = await exportChart(api);
    // 151 records of two lines each: 302 lines.
    const records = await api.newRecords(
      Array.from({ length: 151 }, (_, i) => ({
        review_status: 'READY_FOR_EXPORT',
        erp_posting_date: `2026-06-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
        lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [chart.meals] }],
      })),
    );
    const tooLarge = await api.post(EXPORTS, { format: 'xero', balancing_accounts: cardCode });
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body).toEqual(
      errorBody('EXPORT_TOO_LARGE', {
        message:
          'The xero file would hold 302 lines, and its import takes at most 300 in one file, so nothing was exported: select fewer records (a shorter posted_from–posted_to, or accounting_record_ids); the first 150 in file order fit.',
        details: { format: 'xero', lines: 302, max_lines: 300, records_that_fit: 150 },
      }),
    );
    const fits = await api.post(EXPORTS, {
      format: 'xero',
      balancing_accounts: cardCode,
      exclude_accounting_record_ids: [records[0].id],
    });
    expect(fits.status, fits.text).toBe(200);
    expect(fits.text.trimEnd().split('\r\n')).toHaveLength(301);
    // The other formats have no such limit.
    expect((await api.post(EXPORTS, { format: 'netsuite' })).status).toBe(200);
  });
});
