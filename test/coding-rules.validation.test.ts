import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { newRule, patch, ruleBody, ruleChart, ruleUrl, RULES, versionsUrl } from './support/coding-rules.js';

describeEachDialect('coding rules: refusals', (t) => {
  it('refuses empty and impossible conditions, no action and a field set twice, naming each, and stores nothing', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const res = await api.create(RULES, {
      name: 'Impossible',
      conditions: {
        record_types: ['BILL_EXPENSE', 'CARD_EXPENSE_POST'],
        source_types: ['CARD'],
        amount: { currency: 'USD', min: 100, max: 50 },
      },
      actions: { field_values: [set(gl, 0), set(gl, 1)] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/conditions/record_types/0',
              message: 'is a BILL type, and source_types allows only CARD: no record can match',
            },
            { path: '/conditions/amount', message: 'has min 100 greater than max 50: no amount can match' },
            {
              path: '/actions/field_values/1/field_id',
              message: `sets the field ${gl.field.svc_id} a second time: one value per field`,
            },
          ],
        },
      }),
    );
    const empty = await api.create(RULES, { name: 'Everything', conditions: {}, actions: { field_values: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.details.errors).toEqual([
      {
        path: '/conditions',
        message: 'must hold at least one condition: a rule that matches every record is not allowed',
      },
      { path: '/actions', message: 'must set at least one field value or the memo' },
    ]);
    const money = await api.create(RULES, {
      name: 'Odd money',
      conditions: { amount: { currency: 'JPY', min: 1.5 } },
      actions: { memo: 'x', field_values: [] },
    });
    expect(money.status).toBe(400);
    expect(money.body.details.errors).toEqual([{ path: '/conditions/amount/min', message: expect.any(String) }]);
    const currency = await api.create(RULES, {
      name: 'No such money',
      conditions: { amount: { currency: 'XXY' } },
      actions: { memo: 'x', field_values: [] },
    });
    expect(currency.status).toBe(400);
    expect(currency.body.details.errors).toEqual([
      { path: '/conditions/amount/currency', message: expect.any(String) },
    ]);
    const schema = await api.create(RULES, {
      name: 'x',
      conditions: { vendor_name: { operator: 'LIKE', value: 'x' }, record_types: [] },
      actions: { field_values: [] },
      extra: 1,
    });
    expect(schema.status).toBe(400);
    expect((await api.get(RULES)).body.items).toEqual([]);
  });

  it('refuses an unknown field or value (404) and a value of another field or disabled (422), pointed', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const missing = await api.create(
      RULES,
      ruleBody('X', [
        { field_id: 'field_unknown', svc_id: gl.values[0].svc_id },
        { field_id: dept.field.svc_id, svc_id: 'efo_unknown' },
      ]),
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(
      errorBody('NOT_FOUND', {
        details: {
          errors: [
            {
              path: '/actions/field_values/0',
              field_id: 'field_unknown',
              svc_id: gl.values[0].svc_id,
              reason: 'FIELD_NOT_FOUND',
              message: 'names field_unknown, which is not a field of the account',
            },
            {
              path: '/actions/field_values/1',
              field_id: dept.field.svc_id,
              svc_id: 'efo_unknown',
              reason: 'NOT_FOUND',
              message: 'is not a value of the account (unknown or deleted)',
            },
          ],
        },
      }),
    );
    await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[2].svc_id, data: { is_disabled: true } }],
    });
    const unusable = await api.create(
      RULES,
      ruleBody('X', [{ field_id: dept.field.svc_id, svc_id: gl.values[0].svc_id }, set(gl, 2)]),
    );
    expect(unusable.status).toBe(422);
    expect(unusable.body).toEqual(
      errorBody('INVALID_CODING', {
        details: {
          errors: [
            {
              path: '/actions/field_values/0',
              field_id: dept.field.svc_id,
              svc_id: gl.values[0].svc_id,
              reason: 'VALUE_OF_ANOTHER_FIELD',
              message: `names a value of the field ${gl.field.svc_id}, not of ${dept.field.svc_id}`,
              value_field_id: gl.field.svc_id,
            },
            {
              path: '/actions/field_values/1',
              ...set(gl, 2),
              reason: 'VALUE_DISABLED',
              message: 'is the disabled value "6030 Software" of GL Account',
            },
          ],
        },
      }),
    );
    // Another account's values are unknown here.
    const stranger = await t.ctx.as(['accounting.record.admin']);
    expect((await stranger.create(RULES, ruleBody('X', [set(gl, 0)]))).status).toBe(404);
    expect((await api.get(RULES)).body.items).toEqual([]);
  });

  it('checks a change as a create, and a refused change leaves the rule and its versions as they were', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('Uber', [set(gl, 1)]));
    const refused = await patch(api, ruleUrl(rule.id), {
      version: 1,
      conditions: { amount: { currency: 'USD', min: 10, max: 1 } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors).toEqual([
      { path: '/conditions/amount', message: 'has min 10 greater than max 1: no amount can match' },
    ]);
    const unknown = await patch(api, ruleUrl(rule.id), {
      version: 1,
      actions: { field_values: [{ field_id: gl.field.svc_id, svc_id: 'efo_gone' }] },
    });
    expect(unknown.status).toBe(404);
    expect((await api.get(ruleUrl(rule.id))).body).toEqual(rule);
    expect((await api.get(versionsUrl(rule.id))).body.items).toHaveLength(1);
  });
});
