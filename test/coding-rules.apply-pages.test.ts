import { expect, it } from 'vitest';
import { APPLY, newRule, ruleBody, ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { storedRecords } from './support/stored.js';

/** More than a page (500) of records under review, so that an apply reads and writes in several batches. */
const COUNT = 1001;

describeEachDialect('coding rules: applied on demand, page after page', (t) => {
  it('versions every record once, in order under the clock, each with its event and the values the rule set', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const records = await api.newRecords(Array.from({ length: COUNT }, () => ({ vendor: { id: 'v', name: 'Uber' } })));
    const before = await storedRecords(t.ctx, api.accountId);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1)]));
    const res = await api.create(APPLY, {});
    expect(res.status, res.text).toBe(200);
    // Applied in creation order (ids sort so).
    const ids = records.map((r) => r.id).sort();
    expect(res.body).toEqual({ records_changed: COUNT, updated_accounting_record_ids: ids });

    const after = await storedRecords(t.ctx, api.accountId);
    // In (updated_at, id) order, the records come in the order they were applied (creation), each a new version.
    expect(after.map((r) => r.id)).toEqual(ids);
    expect(after.map((r) => Number(r.version))).toEqual(ids.map(() => 2));
    expect(after.map((r) => Number(r.uncoded_lines))).toEqual(ids.map(() => 0));
    const times = after.map((r) => Number(r.updated_at));
    expect(new Set(times).size).toBe(COUNT);
    expect(times[0]).toBeGreaterThan(Math.max(...before.map((r) => Number(r.updated_at))));
    for (const r of after) {
      const line = JSON.parse(r.line_items_json)[0];
      expect(line.accounting_field_values.map((v: any) => v.svc_field_value_id)).toEqual([gl.values[1].svc_id]);
    }

    const db = t.ctx.db.direct;
    const events = await db
      .selectFrom('accounting_record_events')
      .select(['record_id', 'version', 'occurred_at'])
      .where('account_id', '=', api.accountId)
      .where('type', '=', 'CODED_BY_RULES')
      .orderBy('occurred_at')
      .execute();
    expect(events.map((e) => [e.record_id, Number(e.version), Number(e.occurred_at)])).toEqual(
      after.map((r) => [r.id, 2, Number(r.updated_at)]),
    );
    const marks = await db
      .selectFrom('coding_rule_line_values')
      .select(['record_id', 'rule_id', 'rule_version', 'value_id'])
      .where('account_id', '=', api.accountId)
      .orderBy('record_id')
      .execute();
    expect(marks.map((m) => ({ ...m, rule_version: Number(m.rule_version) }))).toEqual(
      ids.map((id) => ({ record_id: id, rule_id: rule.id, rule_version: 1, value_id: gl.values[1].svc_id })),
    );
  });
});
