import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { exportChart, exported, minorOf, mixedBook, svcBalances } from './support/exports.js';
import { beanBalances, beanCheck, hledgerBalances, hledgerCheck, withFile } from './support/ledger-tools.js';

const balancesOf = (rows: string[][]) =>
  new Map(rows.filter((r) => minorOf(r[2]!, r[1]!) !== 0n).map((r) => [`${r[0]} ${r[1]}`, minorOf(r[2]!, r[1]!)]));

/** "Expenses:7500 Other G&A" as Beancount names it. */
const beancountName = (account: string) => {
  const [root, name] = account.split(':') as [string, string];
  return `${root}:${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`;
};

describeEachDialect('exports: verified by hledger and Beancount', (t) => {
  it('hledger check passes and every balance per account and currency equals svc’s records', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const records = await mixedBook(api, await exportChart(api), 60);
    const journal = await exported(api, { format: 'hledger' });
    const balances = withFile('books.journal', journal, (file) => {
      hledgerCheck(file);
      return balancesOf(hledgerBalances(file));
    });
    expect(balances).toEqual(svcBalances(records));
    expect(balances.size).toBeGreaterThan(10);
  });

  it('bean-check passes and every balance per account and currency equals svc’s records', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const records = await mixedBook(api, await exportChart(api), 60);
    const book = await exported(api, { format: 'beancount' });
    const balances = withFile('books.beancount', book, (file) => {
      beanCheck(file);
      return balancesOf(beanBalances(file));
    });
    expect(balances).toEqual(svcBalances(records, beancountName));
    expect(balances.size).toBeGreaterThan(10);
  });
});
