import { expect, it } from 'vitest';
import type { Scope } from '../src/modules/auth/scopes.js';
import { ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { codingUrl } from './support/review.js';
import { history, suggestion, suggestionsOf } from './support/suggestions.js';

/** The console's record answer (allowed-moves.ts): the record, its moves and, for a caller who may code, its suggestions. */
const recordUrl = (id: string) => `/internal/v1/accounting/records/${id}`;
const line = (field_values: unknown[], amount: number) => ({ amount: { amount, currency: 'USD' }, field_values });

describeEachDialect("coding suggestions in the record's own answer", (t) => {
  /** A chart, Uber's approved history (Travel, Sales), and a new Uber record: one line uncoded, one coded Software. */
  async function estate() {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    await history(api, [
      { vendor: 'Uber', codes: [set(gl, 1), set(dept, 0)] },
      { vendor: 'Uber', codes: [set(gl, 1), set(dept, 0)] },
      { vendor: 'Uber', codes: [set(gl, 1), set(dept, 0)] },
    ]);
    const record = await api.newRecord({
      vendor: { id: 'v_Uber', name: 'Uber' },
      lines: [line([], 100), line([set(gl, 2)], 71.75)],
    });
    return { api, gl, dept, set, record };
  }
  const travel = { confidence: 1, signal: 'VENDOR', matching_records: 3, coded_records: 3 };
  const because = (value: string) => `3 of the last 3 records of vendor Uber were coded ${value}`;

  it('carries the suggestions of each line still uncoded, as the suggestions endpoint answers them, to a caller who may code', async () => {
    const { api, gl, dept, record } = await estate();
    const [first, second] = record.line_items;
    const expected = [
      suggestion(first.id, gl, 1, { ...travel, reason: because('6020 Travel') }),
      suggestion(first.id, dept, 0, { ...travel, reason: because('Sales') }),
      suggestion(second.id, dept, 0, { ...travel, reason: because('Sales') }),
    ];
    for (const scopes of [['accounting.record.review'], ['accounting.record.admin']] satisfies Scope[][]) {
      const caller = await t.ctx.as(scopes, api.accountId);
      const res = await caller.get(recordUrl(record.id));
      expect([res.status, res.body.record.id, res.body.record.version, res.body.suggestions], scopes[0]).toEqual([
        200,
        record.id,
        1,
        expected,
      ]);
      expect((await suggestionsOf(caller, record.id)).suggestions).toEqual(expected);
    }

    // Coded as suggested, the line's GL is no longer suggested: the answer follows the record's version.
    const coded = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: first.id, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }] }],
    });
    expect(coded.status, coded.text).toBe(200);
    const after = await api.get(recordUrl(record.id));
    expect([after.status, after.body.record.version, after.body.suggestions]).toEqual([200, 2, expected.slice(1)]);
  });

  it('answers null to a caller who may read the record but not code it, and [] when every line is coded', async () => {
    const { api, gl, dept, set, record } = await estate();
    for (const scopes of [
      ['accounting.record.read'],
      ['accounting.record.write'],
      ['accounting.record.read', 'accounting.record.write'],
    ] satisfies Scope[][]) {
      const caller = await t.ctx.as(scopes, api.accountId);
      const res = await caller.get(recordUrl(record.id));
      expect([res.status, res.body.record.id, res.body.suggestions], scopes.join(' ')).toEqual([200, record.id, null]);
      // The endpoint itself refuses them.
      expect((await caller.get(`${recordUrl(record.id)}/suggestions`)).status).toBe(403);
    }
    const full = await api.newRecord({
      vendor: { id: 'v_Uber', name: 'Uber' },
      lines: [line([set(gl, 1), set(dept, 0)], 171.75)],
    });
    const res = await api.get(recordUrl(full.id));
    expect([res.status, res.body.suggestions]).toEqual([200, []]);
  });
});
