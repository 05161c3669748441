import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import { PREVIEW, ruleChart, RULES } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { codingUrl } from './support/review.js';
import { storedRecords } from './support/stored.js';

const uber = { vendor: { id: 'v', name: 'Uber Trip' } };

describeEachDialect('coding rules: preview of an unsaved rule', (t) => {
  it('counts the records under review it would change, with a sample of each line before and after; writes nothing', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const records = await api.newRecords([
      ...Array.from({ length: 12 }, () => uber),
      { ...uber, review_status: 'READY_FOR_EXPORT' },
      { vendor: { id: 'v', name: 'Lyft' } },
      { ...uber, review_status: 'REVIEW', memo: 'x' },
    ]);
    const person = records[14];
    const coded = await api.post(codingUrl(person.id), {
      version: 1,
      lines: [{ line_id: person.line_items[0].id, field_values: [set(gl, 0)] }],
    });
    expect(coded.status).toBe(200);
    const stored = await storedRecords(t.ctx, api.accountId);
    const rule = {
      conditions: { vendor_name: { operator: 'CONTAINS', value: 'uber' } },
      actions: { field_values: [set(gl, 1), set(dept, 0)], memo: 'Rides' },
    };
    const res = await api.post(PREVIEW, { rule });
    expect(res.status, res.text).toBe(200);
    expect(res.body.records_changed).toBe(13);
    expect(res.body.sample).toHaveLength(10);
    expect(res.body.sample[0]).toEqual({
      accounting_record_id: records[0].id,
      version: 1,
      lines: [
        {
          line_id: records[0].line_items[0].id,
          field_values: [
            { field_id: gl.field.svc_id, before: null, after: { svc_id: gl.values[1].svc_id, value: '6020 Travel' } },
            { field_id: dept.field.svc_id, before: null, after: { svc_id: dept.values[0].svc_id, value: 'Sales' } },
          ],
          memo: { before: null, after: 'Rides' },
        },
      ],
    });
    // Nothing written, no rule saved.
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(stored);
    expect((await api.get(RULES)).body.items).toEqual([]);

    // The person's GL is left alone unless overwrite; then it shows before and after.
    const only = (body: any) => body.sample.find((s: any) => s.accounting_record_id === person.id);
    const [kept, forced] = await Promise.all(
      [false, true].map(async (overwrite) => {
        const r = await api.post(PREVIEW, { rule: { ...rule, actions: { field_values: [set(gl, 1)] } }, overwrite });
        expect(r.status, r.text).toBe(200);
        return r.body;
      }),
    );
    expect(kept.records_changed).toBe(12);
    expect(forced.records_changed).toBe(13);
    const last = await api.post(PREVIEW, {
      rule: { conditions: { memo_contains: 'x' }, actions: { field_values: [set(gl, 1)] } },
      overwrite: true,
    });
    expect(only(last.body).lines[0].field_values).toEqual([
      {
        field_id: gl.field.svc_id,
        before: { svc_id: gl.values[0].svc_id, value: '6010 Meals' },
        after: { svc_id: gl.values[1].svc_id, value: '6020 Travel' },
      },
    ]);
    expect((await api.get(`${RECORDS}/${person.id}`)).body.version).toBe(2);
  });

  it('refuses a rule as a create would, with paths into the rule; the review scope may preview', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    const bad = await reviewer.post(PREVIEW, {
      rule: { conditions: {}, actions: { field_values: [{ field_id: gl.field.svc_id, svc_id: 'efo_gone' }] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors).toEqual([{ path: '/rule/conditions', message: expect.any(String) }]);
    const gone = await reviewer.post(PREVIEW, {
      rule: {
        conditions: { has_receipt: false },
        actions: { field_values: [{ field_id: gl.field.svc_id, svc_id: 'efo_gone' }] },
      },
    });
    expect(gone.status).toBe(404);
    expect(gone.body.details.errors).toEqual([
      expect.objectContaining({ path: '/rule/actions/field_values/0', reason: 'NOT_FOUND' }),
    ]);
    const ok = await reviewer.post(PREVIEW, {
      rule: { conditions: { has_receipt: false }, actions: { field_values: [set(gl, 0)] } },
    });
    expect(ok.body).toEqual({ records_changed: 0, sample: [] });
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    expect((await reader.post(PREVIEW, { rule: {} })).status).toBe(403);
  });
});
