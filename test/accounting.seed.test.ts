import { expect, it } from 'vitest';
import { seed } from '../src/cli/seed.js';
import type { RecordType } from '../src/modules/accounting/ledger.js';
import { SOURCE_STATUSES_BY_TYPE } from '../src/modules/accounting/source-status.js';
import { describeEachDialect, newAccountId } from './support/context.js';
import { RECORDS } from './support/accounting.js';
import { expectBalanced } from './support/expect.js';
import { storedFields, storedRecords, storedValues } from './support/stored.js';

describeEachDialect('svc seed', (t) => {
  it('writes fields with values and records of every type and review state, readable through the API', async () => {
    const accountId = newAccountId();
    const lines: string[] = [];
    await seed(t.ctx.db, ['--account', accountId, '--records', '300', '--values', '40'], (l) => lines.push(l));
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!);
    expect(summary).toMatchObject({ account_id: accountId, values: 40, records: 300 });
    expect(summary.fields.map((f: any) => [f.name, f.values])).toEqual([
      ['GL Account', 16],
      ['Department', 8],
      ['Location', 8],
      ['Class', 8],
    ]);
    expect(Object.keys(summary.records_by_type)).toHaveLength(19);
    expect(Object.keys(summary.records_by_review_status).sort()).toEqual([
      'EXPORTED',
      'PREPARE',
      'READY_FOR_EXPORT',
      'REVIEW',
    ]);

    const rows = await storedRecords(t.ctx, accountId);
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((r) => Number(r.updated_at))).size).toBe(300);
    const values = await storedValues(t.ctx, accountId);
    expect(values).toHaveLength(40);
    const valueIds = new Set(values.map((v) => v.svc_id));

    const api = await t.ctx.as(['accounting.record.admin', 'accounting.record.read'], accountId);
    const page = await api.get(RECORDS, { limit: '500' });
    expect(page.body.total_count).toBe(300);
    // Every type in every review state (19 × 4) within the first 76 records.
    expect(new Set(page.body.items.map((r: any) => `${r.type} ${r.review_status}`)).size).toBe(76);
    // Seeded records have users (the check on their account below is not vacuous).
    expect(page.body.items.filter((r: any) => r.user !== null).length).toBeGreaterThan(0);
    for (const record of page.body.items) {
      expectBalanced(record);
      for (const line of record.line_items) {
        for (const coding of line.accounting_field_values) expect(valueIds.has(coding.svc_field_value_id)).toBe(true);
      }
      if (record.review_status === 'EXPORTED') expect(record.last_export_result?.status).toBe('SUCCESS');
      // The reference record's members: a status the type's activity may be in, the user of the account, and
      // billing amounts apportioned over the economic lines (the balancing line has none).
      expect(SOURCE_STATUSES_BY_TYPE[record.type as RecordType]).toContain(record.status);
      if (record.user !== null) expect(record.user.account_id).toBe(accountId);
      const billed = record.line_items.filter((l: any) => l.billing_amount !== undefined);
      expect(billed.length).toBe(record.line_items.length - 1);
      const minor = (m: { amount: number }) => Math.round(m.amount * 1000);
      expect(billed.reduce((sum: number, l: any) => sum + minor(l.billing_amount), 0)).toBe(
        minor(record.billing_amount),
      );
      for (const line of record.line_items) {
        expect(line.amortization).toBeNull();
        for (const coding of line.accounting_field_values) expect(coding.type).toBe('IDENTIFIER');
      }
    }
    const items: any[] = page.body.items;
    expect(new Set(items.map((r) => r.status))).toEqual(
      new Set(['DRAFT', 'SUBMITTED', 'APPROVED', 'PENDING', 'COMPLETED']),
    );
    const conversions = items.filter((r) => r.billing_amount.currency !== r.amount.currency);
    expect(conversions.length).toBeGreaterThan(0);
    for (const r of conversions) expect([r.source_type, r.billing_amount.currency]).toEqual(['CARD', 'USD']);
    expect(page.body.items.some((r: any) => r.line_items.length > 2)).toBe(true);
    expect(page.body.items.some((r: any) => r.user !== null && r.vendor !== null)).toBe(true);

    // the record clock continues after the seeded records: later writes poll after them
    const later = await api.newRecord();
    expect(later.updated_at > page.body.items.at(-1).updated_at).toBe(true);

    // A second run on an account that has data is refused, unless asked: demo data must not mix into real data.
    await expect(
      seed(t.ctx.db, ['--account', accountId, '--records', '19', '--values', '4'], () => {}),
    ).rejects.toThrow(`account ${accountId} already has data (4 fields, 301 records): demo data would mix into it`);
    expect(await storedRecords(t.ctx, accountId)).toHaveLength(301);
  });

  it('writes into an account with data only when asked, and then into demo fields of its own', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write', 'fields.read']);
    const own = await api.newCoding('GL Account', [{ value: '6000 Travel' }]);
    expect(own.field.remote_id).toBeNull();
    const lines: string[] = [];
    await seed(t.ctx.db, ['--account', api.accountId, '--records', '30', '--values', '8', '--into-existing'], (l) =>
      lines.push(l),
    );
    const summary = JSON.parse(lines[0]!);
    expect(summary.fields.map((f: any) => f.name)).toEqual(
      ['GL Account', 'Department', 'Location', 'Class'].map((n) =>
        expect.stringMatching(new RegExp(`^Demo ${n} [0-9a-f]{6}$`)),
      ),
    );
    expect(summary.fields.every((f: any) => /^DEMO_[A-Z_]+_[0-9a-f]{6}$/.test(f.remote_id))).toBe(true);
    // The account's own field is as it was: its one value, and no demo remote_id.
    const ownValues = await storedValues(t.ctx, api.accountId, own.field.svc_id);
    expect(ownValues.map((v) => [v.value, v.remote_id])).toEqual([['6000 Travel', null]]);
    expect((await storedFields(t.ctx, api.accountId)).find((f) => f.svc_id === own.field.svc_id)?.remote_id).toBeNull();
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(5);
    expect(await storedRecords(t.ctx, api.accountId)).toHaveLength(30);
  });

  it('rejects bad arguments', async () => {
    await expect(seed(t.ctx.db, ['--records', '5'], () => {})).rejects.toThrow('--account is required');
    await expect(seed(t.ctx.db, ['--account', 'a', '--records', 'many'], () => {})).rejects.toThrow(
      '--records must be a whole number',
    );
    await expect(seed(t.ctx.db, ['--account', 'a', '--bogus'], () => {})).rejects.toThrow();
  });
});
