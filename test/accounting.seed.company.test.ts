import { expect, it } from 'vitest';
import { seed } from '../src/cli/seed.js';
import { ACCOUNTS, LANDLORD, MERCHANTS } from '../src/cli/seed-company.js';
import { accountOf } from '../src/cli/seed-history.js';
import { LEDGER, type RecordType } from '../src/modules/accounting/ledger.js';
import type { Api } from './support/api.js';
import { APPLY, RULES } from './support/coding-rules.js';
import { describeEachDialect, newAccountId } from './support/context.js';
import { REVIEWER } from './support/review.js';
import { allRecords } from './support/sandbox.js';

/** A record's economic lines (the balancing line alone has no billing amount). */
const economic = (record: any): any[] => record.line_items.filter((l: any) => l.billing_amount !== undefined);
/** The value a line carries of the field named `field`, if any. */
const valueOf = (line: any, field: string): string | undefined =>
  line.accounting_field_values.find((v: any) => v.field_name === field)?.field_value_name;
const isExpense = (type: RecordType) => LEDGER[type].economicAccount === 'expense';

describeEachDialect('svc seed: a company', (t) => {
  async function seeded(args: string[]): Promise<{ summary: any; api: Api; records: any[] }> {
    const accountId = newAccountId();
    const lines: string[] = [];
    await seed(t.ctx.db, ['--account', accountId, ...args], (l) => lines.push(l));
    const api = await t.ctx.as(REVIEWER, accountId);
    return { summary: JSON.parse(lines[0]!), api, records: await allRecords(api) };
  }

  it('seeds a chart of accounts and a history coded as each merchant always is, with an uncoded queue of the same merchants', async () => {
    const { summary, api, records } = await seeded(['--records', '760', '--values', '60']);
    expect(records).toHaveLength(760);
    // A person is one email (suggestions and the console know people by it): no two of the company's people share one.
    const emails = new Map(records.filter((r) => r.user).map((r) => [r.user.id, r.user.email]));
    expect(emails.size).toBeGreaterThan(30);
    expect(new Set(emails.values()).size).toBe(emails.size);
    const gl = summary.fields.find((f: any) => f.name === 'GL Account');
    const chart = (await api.get(`/v1/fields/${gl.svc_id}/values`, { limit: '1000' })).body.items.map(
      (v: any) => v.value,
    );
    expect(chart).toEqual([
      ...ACCOUNTS,
      '7000 Other Expense 1',
      '7010 Other Expense 2',
      '7020 Other Expense 3',
      '7030 Other Expense 4',
      '7040 Other Expense 5',
    ]);
    const departments = summary.fields.find((f: any) => f.name === 'Department');
    const deptValues = (await api.get(`/v1/fields/${departments.svc_id}/values`)).body.items.map((v: any) => v.value);
    expect(deptValues.slice(0, 7)).toEqual([
      'Engineering',
      'Sales',
      'Marketing',
      'Finance',
      'Operations',
      'Support',
      'People',
    ]);

    const merchants = new Map(MERCHANTS.map((m) => [m.name, m]));
    const glByMerchant = new Map<string, Set<string>>();
    const queued = new Set<string>();
    const booked = new Set<string>();
    for (const record of records) {
      const lines = economic(record);
      const merchant = record.vendor === null ? null : merchants.get(record.vendor.name)!;
      if (record.vendor !== null) expect(merchant, record.vendor.name).toBeDefined();
      if (record.review_status === 'PREPARE') {
        // The queue: nothing coded yet.
        for (const line of lines) expect(line.accounting_field_values).toEqual([]);
        if (merchant) queued.add(merchant.name);
        continue;
      }
      if (merchant) booked.add(merchant.name);
      const expected = accountOf(record.type, merchant);
      for (const line of lines) {
        expect([record.type, record.vendor?.name, valueOf(line, 'GL Account')]).toEqual([
          record.type,
          record.vendor?.name,
          expected,
        ]);
        if (valueOf(line, 'GL Account') === '6200 Rent') {
          expect([record.type, record.vendor.name]).toEqual(['BILL_EXPENSE', LANDLORD]);
        }
      }
      if (merchant && isExpense(record.type)) {
        const seen = glByMerchant.get(merchant.name) ?? new Set();
        seen.add(valueOf(lines[0], 'GL Account')!);
        glByMerchant.set(merchant.name, seen);
      }
      // The first line's department is the person's (or, for a bill no person sent, the merchant's).
      const department = record.user?.department_name ?? merchant?.department ?? 'Finance';
      expect(valueOf(lines[0], 'Department')).toBe(department);
      // Approved and exported: coded in full (office and class too); in review: what a person coded first.
      const full = record.review_status === 'READY_FOR_EXPORT' || record.review_status === 'EXPORTED';
      expect(lines[0].accounting_field_values.map((v: any) => v.field_name)).toEqual(
        full ? ['GL Account', 'Department', 'Location', 'Class'] : ['GL Account', 'Department'],
      );
      if (full) expect(valueOf(lines[0], 'Location')).toBe(record.user?.location_name ?? 'New York');
    }
    // Each merchant's expenses on one account, always its own.
    for (const [name, seen] of glByMerchant) expect([name, [...seen]]).toEqual([name, [merchants.get(name)!.account]]);
    expect(glByMerchant.size).toBeGreaterThanOrEqual(20);
    // The queue holds merchants the history has seen: what rules and suggestions learn from.
    expect([...queued].filter((name) => !booked.has(name))).toEqual([]);
    // The people spend where they work: card spend in London is in pounds (some charged to a USD card).
    const london = records.filter((r) => r.source_type === 'CARD' && r.user?.location_name === 'London');
    expect(london.length).toBeGreaterThan(0);
    for (const r of london) expect([r.amount.currency, r.billing_amount.currency]).toContain('GBP');

    // Sample rules, to try at once: applied, they code the queue's Uber, AWS and Staples records.
    const rules = (await api.get(RULES)).body.items;
    expect(summary.rules).toBe(3);
    expect(rules.map((r: any) => [r.name, r.status, r.enabled])).toEqual([
      ['Rides are travel (Uber)', 'ACTIVE', true],
      ['AWS is software', 'ACTIVE', true],
      ['Staples is office supplies', 'ACTIVE', true],
    ]);
    const applied = await api.post(APPLY, {});
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.records_changed).toBeGreaterThan(0);
    const after = new Map((await allRecords(api)).map((r) => [r.id, r]));
    for (const id of applied.body.updated_accounting_record_ids) {
      const r = after.get(id);
      expect(['Uber', 'Amazon Web Services', 'Staples']).toContain(r.vendor.name);
      expect(valueOf(economic(r)[0], 'GL Account')).toBe(merchants.get(r.vendor.name)!.account);
    }
  });

  it('makes the same company for the same arguments, and a chart cut short keeps the accounts most records use', async () => {
    const shape = (r: any) =>
      JSON.stringify([
        r.type,
        r.review_status,
        r.amount,
        r.vendor?.name,
        r.user?.email,
        economic(r).map((l) => l.accounting_field_values.map((v: any) => v.field_value_name)),
      ]);
    const a = await seeded(['--records', '76', '--values', '20']);
    const b = await seeded(['--records', '76', '--values', '20']);
    expect(b.records.map(shape)).toEqual(a.records.map(shape));
    // 8 GL accounts: travel, meals, software, office supplies, cash, the card, revenue and rent.
    const gl = a.summary.fields.find((f: any) => f.name === 'GL Account');
    const chart = (await a.api.get(`/v1/fields/${gl.svc_id}/values`)).body.items.map((v: any) => v.value);
    expect(chart).toEqual(ACCOUNTS.slice(0, 8));
    for (const record of a.records) {
      for (const line of economic(record)) {
        const account = valueOf(line, 'GL Account');
        if (account !== undefined) expect(chart).toContain(account);
      }
    }
  });
});
