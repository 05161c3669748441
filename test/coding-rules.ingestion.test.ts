import { expect, it } from 'vitest';
import { PEOPLE } from './support/accounting.js';
import { codedPairs, newRule, patch, ruleBody, ruleChart, ruleUrl } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { coding, historyUrl, REQUIRED, usd } from './support/review.js';
import { storedRecord } from './support/stored.js';

describeEachDialect('coding rules: at ingestion', (t) => {
  it("codes new records' uncoded fields in the ingestion itself, keeps the source's values, and names the rule in the history", async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1), set(dept, 0)]));
    expect(rule.status).toBe('ACTIVE');
    const withMemo = await newRule(api, {
      name: 'memo',
      conditions: { vendor_name: { operator: 'EQUALS', value: 'UBER TRIP' } },
      actions: { field_values: [set(gl, 0)], memo: 'Rides' },
    });
    const [record, other] = await api.newRecords([
      {
        amount: usd(30),
        vendor: { id: 'v1', name: 'Uber Trip' },
        lines: [
          { amount: usd(10) },
          {
            amount: usd(20),
            memo: 'given',
            field_values: [{ field_id: dept.field.svc_id, svc_id: dept.values[1].svc_id }],
          },
        ],
      },
      { amount: usd(5), vendor: { id: 'v2', name: 'Lyft' } },
    ]);
    // The first rule decides GL (precedence) and Department; the second only the memo, which it alone sets.
    expect(record.line_items[0].accounting_field_values).toEqual([
      coding(gl.field, gl.values[1]),
      coding(dept.field, dept.values[0]),
    ]);
    expect(record.line_items[0].memo).toBe('Rides');
    // The source's Department and memo stay; the empty GL is filled.
    expect(record.line_items[1].accounting_field_values).toEqual([
      coding(dept.field, dept.values[1]),
      coding(gl.field, gl.values[1]),
    ]);
    expect(record.line_items[1].memo).toBe('given');
    expect(record.line_items[2].accounting_field_values).toEqual([]);
    expect(record.version).toBe(1);
    expect(other.line_items[0].accounting_field_values).toEqual([]);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 1, uncoded_lines: 0 });
    const [l0, l1] = [record.line_items[0].id, record.line_items[1].id];
    const history = await api.get(historyUrl(record.id));
    expect(history.body.items).toHaveLength(1);
    expect(history.body.items[0]).toMatchObject({
      type: 'INGESTED',
      version: 1,
      changes: {
        review_status: 'PREPARE',
        coded_by_rules: [
          { line_id: l0, ...set(gl, 1), rule_id: rule.id, rule_version: 1 },
          { line_id: l0, ...set(dept, 0), rule_id: rule.id, rule_version: 1 },
          { line_id: l0, memo: 'Rides', rule_id: withMemo.id, rule_version: 1 },
          { line_id: l1, ...set(gl, 1), rule_id: rule.id, rule_version: 1 },
        ],
      },
    });
    expect((await api.get(historyUrl(other.id))).body.items[0].changes).toEqual({ review_status: 'PREPARE' });
  });

  it('matches every condition together: type, source, user (id, email, department, location), amount and currency, memo, receipt', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    await newRule(api, {
      name: 'all',
      conditions: {
        record_types: ['CARD_EXPENSE_POST'],
        source_types: ['CARD'],
        user_ids: ['cuuser_1'],
        user_emails: ['A@EXAMPLE.invalid'],
        user_department_ids: ['dep_sales'],
        user_location_ids: ['loc_paris', 'loc_nyc'],
        amount: { currency: 'USD', min: 10, max: 100 },
        memo_contains: 'LUNCH',
        has_receipt: true,
      },
      actions: { field_values: [set(gl, 0)] },
    });
    const user = { ...PEOPLE.user, department_id: 'dep_sales', location_id: 'loc_nyc' };
    const base = { amount: usd(50), user, memo: 'Team lunch', receipts: PEOPLE.receipts };
    const records = await api.newRecords([
      base,
      { ...base, type: 'CARD_EXPENSE_REFUND' },
      { ...base, user: { ...user, id: 'cuuser_2' } },
      { ...base, user: { ...user, email: 'b@example.invalid' } },
      { ...base, user: { ...user, department_id: 'dep_ops' } },
      { ...base, user: PEOPLE.user },
      { ...base, amount: usd(100.01) },
      { ...base, amount: { amount: 50, currency: 'EUR' } },
      { ...base, memo: 'dinner' },
      { ...base, receipts: [] },
      { ...base, amount: usd(10) },
    ]);
    expect(records.map((r) => codedPairs(r).length)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it('applies no disabled rule, nor a broken one (not even its usable values), and shows why it is broken', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const disabled = await newRule(api, ruleBody('acme', [set(gl, 2)], { enabled: false }));
    const broken = await newRule(api, ruleBody('acme', [set(gl, 0), set(dept, 1)]));
    expect((await api.newRecord({ vendor: { id: 'v', name: 'Acme' } })).line_items[0].accounting_field_values).toEqual([
      coding(gl.field, gl.values[0]),
      coding(dept.field, dept.values[1]),
    ]);
    await api.delete(`/v1/fields/${dept.field.svc_id}/values`, { items: [{ svc_id: dept.values[1].svc_id }] });
    expect((await api.get(ruleUrl(broken.id))).body).toMatchObject({
      status: 'BROKEN',
      enabled: true,
      problems: [
        {
          path: '/actions/field_values/1',
          ...set(dept, 1),
          reason: 'NOT_FOUND',
          message: 'is not a value of the account (unknown or deleted)',
        },
      ],
    });
    expect((await api.newRecord({ vendor: { id: 'v', name: 'Acme' } })).line_items[0].accounting_field_values).toEqual(
      [],
    );
    // The disabled rule, enabled, applies; then disabling its value breaks it too.
    expect((await patch(api, ruleUrl(disabled.id), { version: 1, enabled: true })).body.status).toBe('ACTIVE');
    expect(codedPairs(await api.newRecord({ vendor: { id: 'v', name: 'ACME' } }))).toEqual([
      [gl.field.svc_id, gl.values[2].svc_id],
    ]);
    await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[2].svc_id, data: { is_disabled: true } }],
    });
    expect((await api.get(ruleUrl(disabled.id))).body).toMatchObject({
      status: 'BROKEN',
      problems: [{ reason: 'VALUE_DISABLED' }],
    });
    expect(codedPairs(await api.newRecord({ vendor: { id: 'v', name: 'Acme' } }))).toEqual([]);
  });

  it('codes before the required coding of a record created ready for export is checked', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    expect((await api.put(REQUIRED, { field_ids: [gl.field.svc_id] })).status).toBe(200);
    const refused = await api.post('/internal/v1/accounting/records', {
      items: [
        {
          type: 'CARD_EXPENSE_POST',
          amount: usd(5),
          posted_at: '2026-06-11T09:09:05.840865Z',
          review_status: 'READY_FOR_EXPORT',
          vendor: { id: 'v', name: 'Delta' },
        },
      ],
    });
    expect(refused.status).toBe(422);
    await newRule(api, ruleBody('delta', [set(gl, 1)]));
    const ready = await api.readyRecord({ vendor: { id: 'v', name: 'Delta' } });
    expect(ready.review_status).toBe('READY_FOR_EXPORT');
    expect(codedPairs(ready)).toEqual([[gl.field.svc_id, gl.values[1].svc_id]]);
  });
});
