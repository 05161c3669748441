import { expect, it } from 'vitest';
import { seed } from '../src/cli/seed.js';
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
    for (const record of page.body.items) {
      expectBalanced(record);
      for (const line of record.line_items) {
        for (const coding of line.accounting_field_values) expect(valueIds.has(coding.svc_field_value_id)).toBe(true);
      }
      if (record.review_status === 'EXPORTED') expect(record.last_export_result?.status).toBe('SUCCESS');
    }
    expect(page.body.items.some((r: any) => r.line_items.length > 2)).toBe(true);
    expect(page.body.items.some((r: any) => r.user !== null && r.vendor !== null)).toBe(true);

    // the record clock continues after the seeded records: later writes poll after them
    const later = await api.newRecord();
    expect(later.updated_at > page.body.items.at(-1).updated_at).toBe(true);

    // a second run on the same account reuses the fields and adds values and records
    await seed(t.ctx.db, ['--account', accountId, '--records', '19', '--values', '4'], () => {});
    expect(await storedFields(t.ctx, accountId)).toHaveLength(4);
    expect(await storedRecords(t.ctx, accountId)).toHaveLength(320);
  });

  it('rejects bad arguments', async () => {
    await expect(seed(t.ctx.db, ['--records', '5'], () => {})).rejects.toThrow('--account is required');
    await expect(seed(t.ctx.db, ['--account', 'a', '--records', 'many'], () => {})).rejects.toThrow(
      '--records must be a whole number',
    );
    await expect(seed(t.ctx.db, ['--account', 'a', '--bogus'], () => {})).rejects.toThrow();
  });
});
