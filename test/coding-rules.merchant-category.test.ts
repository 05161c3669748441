import { expect, it } from 'vitest';
import { INGEST, item, RECORDS } from './support/accounting.js';
import { APPLY, codedPairs, newRule, PREVIEW, ruleChart, RULES } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';

const TAXI = '4121';
const AIRLINE = '4511';

/** The merchant category code kept with each record, read directly. */
async function storedCodes(ctx: any, accountId: string): Promise<Record<string, string | null>> {
  const rows = await ctx.db.direct
    .selectFrom('accounting_record_details')
    .select(['id', 'merchant_category_code'])
    .where('account_id', '=', accountId)
    .execute();
  return Object.fromEntries(rows.map((r: any) => [r.id, r.merchant_category_code]));
}

describeEachDialect('coding rules: a condition on the merchant category code', (t) => {
  it("keeps a card record's code (never shown in its answers) and codes at ingestion the records of the codes given", async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, {
      name: 'Taxis and flights are travel',
      conditions: { merchant_category_codes: [TAXI, AIRLINE] },
      actions: { field_values: [set(gl, 1)] },
    });
    expect(rule.conditions).toEqual({ merchant_category_codes: [TAXI, AIRLINE] });
    const [taxi, food, none, nulled] = await api.newRecords([
      { merchant_category_code: TAXI },
      { merchant_category_code: '5812' },
      {},
      { merchant_category_code: null },
    ]);
    expect([taxi, food, none, nulled].map(codedPairs)).toEqual([[[gl.field.svc_id, gl.values[1].svc_id]], [], [], []]);
    expect(await storedCodes(t.ctx, api.accountId)).toEqual({
      [taxi.id]: TAXI,
      [food.id]: '5812',
      [none.id]: null,
      [nulled.id]: null,
    });
    // The record's answer is the spec's, exactly: the code is not in it.
    expect(Object.keys(taxi)).toEqual(Object.keys(none));
    expect((await api.get(`${RECORDS}/${taxi.id}`)).body).not.toHaveProperty('merchant_category_code');
  });

  it('matches records under review on demand and in a preview', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const [taxi, other] = await api.newRecords([{ merchant_category_code: TAXI }, { merchant_category_code: '5812' }]);
    const rule = { conditions: { merchant_category_codes: [TAXI] }, actions: { field_values: [set(gl, 1)] } };
    const previewed = await api.post(PREVIEW, { rule });
    expect(previewed.status, previewed.text).toBe(200);
    expect(previewed.body.records_changed).toBe(1);
    expect(previewed.body.sample.map((s: any) => s.accounting_record_id)).toEqual([taxi.id]);
    await newRule(api, { name: 'Taxis', ...rule });
    const applied = await api.create(APPLY, {});
    expect(applied.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [taxi.id] });
    expect(codedPairs((await api.get(`${RECORDS}/${other.id}`)).body)).toEqual([]);
  });

  it('refuses a code on a record not of a card, a code not of four digits, and a rule that no card record can match', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const refused = await api.post(INGEST, {
      items: [item({ type: 'BILL_EXPENSE', merchant_category_code: TAXI }), item({ merchant_category_code: '41' })],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors).toEqual([
      {
        path: '/items/1/merchant_category_code',
        message: 'must match the pattern ^[0-9]{4}$',
      },
    ]);
    const bill = await api.post(INGEST, { items: [item({ type: 'BILL_EXPENSE', merchant_category_code: TAXI })] });
    expect(bill.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/items/0/merchant_category_code',
              message: "is a card record's: BILL_EXPENSE is a BILL type",
            },
          ],
        },
      }),
    );
    const actions = { field_values: [set(gl, 0)] };
    const noCard = await api.create(RULES, {
      name: 'x',
      conditions: { merchant_category_codes: [TAXI], source_types: ['BILL'] },
      actions,
    });
    expect(noCard.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/conditions/merchant_category_codes',
              message:
                'only card records carry a merchant category code, and the rule matches no card type: no record can match',
            },
          ],
        },
      }),
    );
    const noCardType = await api.post(PREVIEW, {
      rule: { conditions: { merchant_category_codes: [TAXI], record_types: ['INVOICE'] }, actions },
    });
    expect(noCardType.body.details.errors.map((e: any) => e.path)).toEqual([
      '/rule/conditions/merchant_category_codes',
    ]);
    const badCode = await api.create(RULES, { name: 'x', conditions: { merchant_category_codes: ['taxi'] }, actions });
    expect(badCode.status).toBe(400);
    expect(badCode.body.details.errors.map((e: any) => e.path)).toEqual(['/conditions/merchant_category_codes/0']);
    expect((await api.get(RULES)).body.items).toEqual([]);
  });
});
