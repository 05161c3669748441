import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, RECORDS, reviewUrl } from './support/accounting.js';
import { expectBalanced } from './support/expect.js';
import { REVIEWER, splitUrl } from './support/review.js';

/**
 * What each record type's balancing line stands for: [its side, its account]. Written out here, not read from
 * ledger.ts, so that a change of the mapping (a connector books by it) fails this test.
 */
const BALANCING: Record<string, [string, string]> = {
  CARD_EXPENSE_POST: ['CREDIT', 'CARD_LIABILITY'],
  CARD_EXPENSE_REFUND: ['DEBIT', 'CARD_LIABILITY'],
  CARD_EXPENSE_REPAYMENT: ['DEBIT', 'BANK'],
  CARD_PAYMENT: ['DEBIT', 'CARD_LIABILITY'],
  CARD_PAYMENT_REFUND: ['CREDIT', 'CARD_LIABILITY'],
  REWARD_REDEMPTION: ['DEBIT', 'CARD_LIABILITY'],
  REIMBURSEMENT_EXPENSE_APPROVAL: ['CREDIT', 'REIMBURSEMENTS_PAYABLE'],
  REIMBURSEMENT_EXPENSE_POST: ['CREDIT', 'BANK'],
  REIMBURSEMENT_EXPENSE_REPAYMENT: ['DEBIT', 'BANK'],
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: ['DEBIT', 'REIMBURSEMENTS_PAYABLE'],
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: ['CREDIT', 'REIMBURSEMENTS_PAYABLE'],
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: ['DEBIT', 'REIMBURSEMENT_CLEARING'],
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: ['CREDIT', 'REIMBURSEMENT_CLEARING'],
  INVOICE: ['DEBIT', 'ACCOUNTS_RECEIVABLE'],
  INVOICE_PAYMENT: ['CREDIT', 'ACCOUNTS_RECEIVABLE'],
  BILL_EXPENSE: ['CREDIT', 'ACCOUNTS_PAYABLE'],
  BILL_EXPENSE_PAYMENT: ['DEBIT', 'ACCOUNTS_PAYABLE'],
  BILL_EXPENSE_CARD_PAYMENT: ['DEBIT', 'ACCOUNTS_PAYABLE'],
  BILL_MONEY_MOVEMENT_PAYIN: ['DEBIT', 'BILL_PAY_CLEARING'],
};
const TYPES = Object.keys(BALANCING);
const members = (r: any) => [r.type, r.balancing_line_type, r.balancing_account_type];
const expected = (type: string) => [type, ...BALANCING[type]!];

describeEachDialect('accounting records: what the balancing line stands for', (t) => {
  it('every type answers its balancing line side and account, in ingestion, get and the query pages', async () => {
    const api = await t.ctx.as([...ADMIN]);
    expect(TYPES).toHaveLength(19);
    // Two economic lines each: the balancing line is then the one line of its side, not told by counting.
    const lines = [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71.75, currency: 'USD' } }];
    const created = await api.newRecords(TYPES.map((type) => ({ type, lines })));
    expect(created.map(members)).toEqual(TYPES.map(expected));
    for (const record of created) {
      expectBalanced(record);
      const balancing = record.line_items.filter((l: any) => l.type === record.balancing_line_type);
      expect(balancing).toEqual([
        {
          id: expect.stringMatching(/^accrli_/),
          type: record.balancing_line_type,
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: null,
          memo: null,
          accounting_field_values: [],
          amortization: null,
        },
      ]);
      expect(record.line_items.at(-1)).toEqual(balancing[0]);
      expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
      // single_entry drops the balancing line and still says what it stood for.
      const single = await api.get(`${RECORDS}/${record.id}`, { single_entry: 'true' });
      expect(members(single.body)).toEqual(expected(record.type));
      expect(single.body.line_items.map((l: any) => l.type)).toEqual([
        record.line_items[0].type,
        record.line_items[0].type,
      ]);
      expect(single.body.line_items.every((l: any) => l.type !== record.balancing_line_type)).toBe(true);
    }
    // Pages are written as text, apart from the serializer: the same members, per type, in both entry forms.
    for (const singleEntry of ['false', 'true']) {
      const page = await api.get(RECORDS, { ids: created.map((r) => r.id), limit: '100', single_entry: singleEntry });
      expect(page.status).toBe(200);
      expect(page.body.items.map(members)).toEqual(TYPES.map(expected));
      if (singleEntry === 'false') expect(page.body.items).toEqual(created);
    }
  });

  it('the balancing members stay as a record is coded, split and moved: they follow its type alone', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const record = await api.newRecord({ type: 'BILL_EXPENSE', review_status: 'REVIEW' });
    const economic = record.line_items[0];
    const split = await api.post(splitUrl(record.id, economic.id), {
      version: 1,
      parts: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71.75, currency: 'USD' } }],
    });
    expect(split.status, split.text).toBe(200);
    expect(members(split.body.record)).toEqual(['BILL_EXPENSE', 'CREDIT', 'ACCOUNTS_PAYABLE']);
    expect(split.body.record.line_items.map((l: any) => l.type)).toEqual(['DEBIT', 'DEBIT', 'CREDIT']);
    const moved = await api.post(reviewUrl(record.id), {
      review_status: 'READY_FOR_EXPORT',
    });
    expect(moved.status, moved.text).toBe(200);
    expect(members(moved.body)).toEqual(['BILL_EXPENSE', 'CREDIT', 'ACCOUNTS_PAYABLE']);
  });
});

/** docs/integration.md maps every type to its journal entry: the table must say what the API answers. */
it('the integrators guide maps each type to the balancing side and account the API answers', () => {
  const guide = readFileSync(new URL('../docs/integration.md', import.meta.url), 'utf8');
  const rows = guide
    .split('\n')
    .map((line) => /^\| `([A-Z_]+)` \| [A-Z]+ \| (DEBIT|CREDIT) [^|]+\| (DEBIT|CREDIT) `([A-Z_]+)` \|/.exec(line))
    .filter((m) => m !== null)
    .map((m) => [m[1], m[3], m[4]]);
  expect(Object.fromEntries(rows.map(([type, side, account]) => [type, [side, account]]))).toEqual(BALANCING);
  expect(rows).toHaveLength(19);
});
