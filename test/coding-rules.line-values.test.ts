import { expect, it } from 'vitest';
import { APPLY, newRule, PREVIEW, ruleChart, ruleUrl, RULES } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { RECORDS } from './support/accounting.js';
import { errorBody } from './support/expect.js';
import { usd } from './support/review.js';
import { storedRecords } from './support/stored.js';

/** A rule on the values its records' lines carry: department is Sales (or `svcIds`) → `sets`. */
const onLines = (fieldId: string, svcIds: string[], sets: unknown[]) => ({
  name: 'On the lines',
  conditions: { line_field_values: [{ field_id: fieldId, svc_ids: svcIds }] },
  actions: { field_values: sets },
});

/** A line's coding, as [field_id, svc_id] pairs. */
const codedPairs = (line: any) => line.accounting_field_values.map((v: any) => [v.svc_field_id, v.svc_field_value_id]);

describeEachDialect('coding rules: a condition on a field value of the record', (t) => {
  it('codes at ingestion the records some line of which carries one of the values, reading them as the source sent them', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const sales = set(dept, 0);
    await newRule(api, onLines(dept.field.svc_id, [sales.svc_id], [set(gl, 1)]));
    const line = (amount: number, values: unknown[]) => ({ amount: usd(amount), field_values: values });
    const [split, ops, uncoded] = await api.newRecords([
      { amount: usd(30), lines: [line(10, []), line(20, [sales])] },
      { amount: usd(5), lines: [line(5, [set(dept, 1)])] },
      { amount: usd(5) },
    ]);
    // Every economic line of a matching record gets the rule's values, the line without a department too.
    expect(split.line_items.slice(0, 2).map(codedPairs)).toEqual([
      [[gl.field.svc_id, gl.values[1].svc_id]],
      [
        [dept.field.svc_id, sales.svc_id],
        [gl.field.svc_id, gl.values[1].svc_id],
      ],
    ]);
    expect(codedPairs(ops.line_items[0])).toEqual([[dept.field.svc_id, dept.values[1].svc_id]]);
    expect(codedPairs(uncoded.line_items[0])).toEqual([]);
  });

  it('matches each field given (AND), and on demand reads what earlier rules set; preview counts the same records', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const loc = await api.newCoding('Location', [{ value: 'Berlin' }, { value: 'Paris' }]);
    const bySales = {
      name: 'Sales in Berlin',
      conditions: {
        line_field_values: [
          { field_id: dept.field.svc_id, svc_ids: [dept.values[0].svc_id] },
          { field_id: loc.field.svc_id, svc_ids: [loc.values[0].svc_id, loc.values[1].svc_id] },
        ],
      },
      actions: { field_values: [set(gl, 0)] },
    };
    // Rules read the record as it was before any rule applied: at ingestion, the Department the first rule sets
    // does not make the second match.
    await newRule(api, {
      name: 'Uber is Sales',
      conditions: { vendor_name: { operator: 'EQUALS', value: 'uber' } },
      actions: { field_values: [set(dept, 0)] },
    });
    const rule = await newRule(api, bySales);
    const [uber, both, salesOnly] = await api.newRecords([
      { amount: usd(10), vendor: { id: 'v', name: 'Uber' }, lines: [{ amount: usd(10), field_values: [set(loc, 1)] }] },
      { amount: usd(10), lines: [{ amount: usd(10), field_values: [set(dept, 0), set(loc, 0)] }] },
      { amount: usd(10), lines: [{ amount: usd(10), field_values: [set(dept, 0)] }] },
    ]);
    expect(codedPairs(uber.line_items[0])).toEqual([
      [loc.field.svc_id, loc.values[1].svc_id],
      [dept.field.svc_id, dept.values[0].svc_id],
    ]);
    expect(codedPairs(both.line_items[0])).toContainEqual([gl.field.svc_id, gl.values[0].svc_id]);
    expect(codedPairs(salesOnly.line_items[0])).toEqual([[dept.field.svc_id, dept.values[0].svc_id]]);

    // On demand the Uber record now carries Sales (and Paris): the rule matches it, and nothing else is left.
    const { sample, ...previewed } = (
      await api.post(PREVIEW, { rule: { conditions: bySales.conditions, actions: bySales.actions } })
    ).body;
    expect(previewed).toEqual({ records_changed: 1 });
    expect(sample.map((s: any) => s.accounting_record_id)).toEqual([uber.id]);
    const stored = await storedRecords(t.ctx, api.accountId);
    const applied = await api.create(APPLY, { rule_ids: [rule.id] });
    expect(applied.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [uber.id] });
    const after = await storedRecords(t.ctx, api.accountId);
    expect(after.filter((r: any) => r.id !== uber.id)).toEqual(stored.filter((r: any) => r.id !== uber.id));
    expect(after.find((r: any) => r.id === uber.id)).toMatchObject({ version: 2 });
  });

  it('refuses an unknown field or value, a value of another field or a disabled one, with pointed errors', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const at = (e: number, k: number) => `/conditions/line_field_values/${e}/svc_ids/${k}`;
    const body = (entries: unknown[]) => ({
      name: 'x',
      conditions: { line_field_values: entries },
      actions: { field_values: [set(gl, 0)] },
    });
    const missing = await api.create(
      RULES,
      body([
        { field_id: 'fld_unknown', svc_ids: [dept.values[0].svc_id] },
        { field_id: dept.field.svc_id, svc_ids: [dept.values[0].svc_id, 'efo_unknown'] },
      ]),
    );
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.details.errors).toEqual([
      {
        path: at(0, 0),
        field_id: 'fld_unknown',
        svc_id: dept.values[0].svc_id,
        reason: 'FIELD_NOT_FOUND',
        message: 'names fld_unknown, which is not a field of the account',
      },
      {
        path: at(1, 1),
        field_id: dept.field.svc_id,
        svc_id: 'efo_unknown',
        reason: 'NOT_FOUND',
        message: 'is not a value of the account (unknown or deleted)',
      },
    ]);
    await api.put(`/v1/fields/${dept.field.svc_id}/values`, {
      items: [{ svc_id: dept.values[1].svc_id, data: { is_disabled: true } }],
    });
    const unusable = await api.post(PREVIEW, {
      rule: {
        conditions: {
          line_field_values: [{ field_id: dept.field.svc_id, svc_ids: [gl.values[0].svc_id, dept.values[1].svc_id] }],
        },
        actions: { field_values: [set(gl, 0)] },
      },
    });
    expect(unusable.body).toEqual(
      errorBody('INVALID_CODING', {
        details: {
          errors: [
            {
              path: `/rule${at(0, 0)}`,
              field_id: dept.field.svc_id,
              svc_id: gl.values[0].svc_id,
              reason: 'VALUE_OF_ANOTHER_FIELD',
              message: `names a value of the field ${gl.field.svc_id}, not of ${dept.field.svc_id}`,
              value_field_id: gl.field.svc_id,
            },
            {
              path: `/rule${at(0, 1)}`,
              ...set(dept, 1),
              reason: 'VALUE_DISABLED',
              message: 'is the disabled value "Ops" of Department',
            },
          ],
        },
      }),
    );
    const twice = await api.create(
      RULES,
      body([
        { field_id: dept.field.svc_id, svc_ids: [dept.values[0].svc_id] },
        { field_id: dept.field.svc_id, svc_ids: [dept.values[1].svc_id] },
      ]),
    );
    expect(twice.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/conditions/line_field_values/1/field_id',
              message: `names the field ${dept.field.svc_id} a second time: one entry per field (list its values together)`,
            },
          ],
        },
      }),
    );
    expect((await api.create(RULES, body([]))).status).toBe(400);
    expect((await api.get(RULES)).body.items).toEqual([]);
  });

  it('is BROKEN, and applies nowhere, once a value it matches on is deleted or disabled', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const [record] = await api.newRecords([
      { amount: usd(5), lines: [{ amount: usd(5), field_values: [set(dept, 0)] }] },
    ]);
    const rule = await newRule(api, onLines(dept.field.svc_id, [dept.values[0].svc_id], [set(gl, 1)]));
    await api.put(`/v1/fields/${dept.field.svc_id}/values`, {
      items: [{ svc_id: dept.values[0].svc_id, data: { is_disabled: true } }],
    });
    expect((await api.get(ruleUrl(rule.id))).body).toMatchObject({
      status: 'BROKEN',
      problems: [
        {
          path: '/conditions/line_field_values/0/svc_ids/0',
          ...set(dept, 0),
          reason: 'VALUE_DISABLED',
          message: 'is the disabled value "Sales" of Department',
        },
      ],
    });
    expect((await api.create(APPLY, {})).body).toEqual({ records_changed: 0, updated_accounting_record_ids: [] });
    expect((await api.create(APPLY, { rule_ids: [rule.id] })).body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/rule_ids/0', message: `names rule ${rule.id}, which is BROKEN` }] },
      }),
    );
    // Deleted: still broken, now NOT_FOUND; the record keeps its coding.
    await api.delete(`/v1/fields/${dept.field.svc_id}/values`, { items: [{ svc_id: dept.values[0].svc_id }] });
    expect((await api.get(ruleUrl(rule.id))).body.problems.map((p: any) => p.reason)).toEqual(['NOT_FOUND']);
    expect(codedPairs((await api.get(`${RECORDS}/${record.id}`)).body.line_items[0])).toEqual([
      [dept.field.svc_id, dept.values[0].svc_id],
    ]);
  });
});
