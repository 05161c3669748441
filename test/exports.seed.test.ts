import { expect, it } from 'vitest';
import { readCsv } from '../client/src/integration/csv.js';
import { seed } from '../src/cli/seed.js';
import { describeEachDialect, newAccountId } from './support/context.js';
import { EXPORTS } from './support/exports.js';
import { beanCheck, hledgerCheck, withFile } from './support/ledger-tools.js';
import { storedRecords } from './support/stored.js';

/** The seed's chart (src/cli/seed-company.ts): every account has a four-digit code. */
const CODE = /^\d{4}$/;

/** `svc seed` into a new account, then an export of its ready records in every format, as they are. */
describeEachDialect('exports: a seeded account exports every format out of the box', (t) => {
  it('books every READY record with the chart codes and its balancing accounts; hledger and bean-check pass', async () => {
    const accountId = newAccountId();
    await seed(t.ctx.db, ['--account', accountId, '--records', '190', '--values', '60'], () => {});
    const api = await t.ctx.as(['accounting.record.read', 'accounting.record.admin'], accountId);
    const ready = (await storedRecords(t.ctx, accountId)).filter((r) => r.review_status === 'READY_FOR_EXPORT');
    expect(ready.length).toBeGreaterThan(40);
    const ids = ready.map((r) => r.id).sort();
    const exportOf = async (body: Record<string, unknown>) => {
      const res = await api.post(EXPORTS, body);
      expect(res.status, res.text).toBe(200);
      return res;
    };

    // The stored mapping the seed wrote: its chart's accounts, each with its code.
    const mapping = (await api.get('/internal/v1/accounting/export-mapping')).body;
    expect(mapping).toMatchObject({
      balancing_accounts: { CARD_LIABILITY: 'Liabilities:2100 Corporate Card Payable' },
      home_currency: 'USD',
      quickbooks_multicurrency: true,
    });
    expect(mapping.tracking_fields).toHaveLength(2);

    const journal = await exportOf({ format: 'hledger' });
    expect(journal.headers['x-svc-exported-count']).toBe(String(ready.length));
    expect(journal.text).toContain('Liabilities:2100 Corporate Card Payable');
    expect(journal.text).not.toMatch(/GL_ACCOUNT-/);
    withFile('books.journal', journal.text, hledgerCheck);
    withFile('books.beancount', (await exportOf({ format: 'beancount' })).text, beanCheck);

    const csv = readCsv((await exportOf({ format: 'csv', columns: ['reference', 'account_code'] })).text);
    expect([...new Set(csv.slice(1).map((r) => r.fields[0]))].sort()).toEqual(ids);
    for (const row of csv.slice(1)) expect(row.fields[1]).toMatch(CODE);

    const netsuite = readCsv((await exportOf({ format: 'netsuite' })).text);
    const account = netsuite[0]!.fields.indexOf('Account');
    for (const row of netsuite.slice(1)) expect(row.fields[account]).toMatch(/^\d{4} \S/);
    const quickbooks = readCsv((await exportOf({ format: 'quickbooks' })).text);
    expect([...new Set(quickbooks.slice(1).map((r) => r.fields[3]))].sort()).toEqual(ids);
    expect(quickbooks[0]!.fields.slice(0, 4)).toEqual(['Journal No', 'Journal Date', 'Currency', 'Memo']);

    // Xero books the organisation's base currency only: the records spent abroad are refused, for that alone.
    const abroad = ready.filter((r) => r.currency !== 'USD').map((r) => r.id);
    expect(abroad.length).toBeGreaterThan(0);
    const refused = await api.post(EXPORTS, { format: 'xero' });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.details.records.map((r: any) => r.accounting_record_id).sort()).toEqual(abroad.sort());
    for (const r of refused.body.details.records) {
      const currency = ready.find((x) => x.id === r.accounting_record_id)!.currency;
      expect(r.problems).toEqual([
        `its currency ${currency} is not the home currency USD (home_currency of the export mapping); Xero imports manual journals in the organisation's base currency only`,
      ]);
    }
    const xero = readCsv((await exportOf({ format: 'xero', exclude_accounting_record_ids: abroad })).text);
    expect(xero.length - 1).toBeLessThanOrEqual(300);
    const code = xero[0]!.fields.indexOf('AccountCode');
    for (const row of xero.slice(1)) expect(row.fields[code]).toMatch(CODE);
    expect(new Set(xero.slice(1).map((r) => r.fields[0]!.split(' ')[0])).size).toBe(ready.length - abroad.length);
  });
});
