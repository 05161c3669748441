import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import {
  APPLY,
  codedPairs,
  newRule,
  patch,
  ruleBody,
  ruleChart,
  ruleUrl,
  versionsUrl,
} from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { codingUrl, historyUrl } from './support/review.js';
import { storedRecord } from './support/stored.js';

const uber = { vendor: { id: 'v', name: 'Uber Trip' } };

describeEachDialect('coding rules: concurrent changes', (t) => {
  it('two changes from the same version: one makes version 2, the other is 409; one new version is kept', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1)]));
    const answers = await Promise.all(
      ['left', 'right'].map((name) => patch(api, ruleUrl(rule.id), { version: 1, name })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200)!.body;
    expect((await api.get(ruleUrl(rule.id))).body).toEqual(won);
    expect((await api.get(versionsUrl(rule.id))).body.items.map((v: any) => [v.version, v.name])).toEqual([
      [1, 'Rule for uber'],
      [2, won.name],
    ]);
  });

  it("rules applied while a person codes the same record: no lost update, versions in order, the person's value stays", async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const records = await api.newRecords([uber, uber, uber]);
    await newRule(api, ruleBody('uber', [set(gl, 1)]));
    const polledFrom = records
      .map((r) => r.updated_at)
      .sort()
      .at(-1);
    const target = records[1];
    const [applied, coded] = await Promise.all([
      api.create(APPLY, {}),
      api.post(codingUrl(target.id), {
        version: 1,
        lines: [{ line_id: target.line_items[0].id, field_values: [set(gl, 0)] }],
      }),
    ]);
    expect(applied.status, applied.text).toBe(200);
    expect([200, 409]).toContain(coded.status);
    const now = (await api.get(`${RECORDS}/${target.id}`)).body;
    const events = (await api.get(historyUrl(target.id))).body.items;
    expect(events.map((e: any) => e.version)).toEqual(events.map((_: any, i: number) => i + 1));
    expect(now.version).toBe(events.length);
    expect((await storedRecord(t.ctx, api.accountId, target.id))!.version).toBe(events.length);
    // Coded by the person (whether before or after the rules): their value; refused (rules first): the rule's.
    expect(codedPairs(now)).toEqual([[gl.field.svc_id, gl.values[coded.status === 200 ? 0 : 1].svc_id]]);
    // A poller from before sees every record the rules changed.
    const polled = await api.get(RECORDS, { 'updated_at[gt]': polledFrom, limit: '500' });
    expect(polled.body.items.map((r: any) => r.id).sort()).toEqual(
      [
        ...new Set([...applied.body.updated_accounting_record_ids, ...(coded.status === 200 ? [target.id] : [])]),
      ].sort(),
    );
  });

  it('a retried apply with its Idempotency-Key replays the answer and changes nothing more', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const [record] = await api.newRecords([uber]);
    await newRule(api, ruleBody('uber', [set(gl, 1)]));
    const headers = { 'idempotency-key': 'apply-once' };
    const first = await api.post(APPLY, {}, headers);
    expect(first.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [record.id] });
    const again = await api.post(APPLY, {}, headers);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await api.get(`${RECORDS}/${record.id}`)).body.version).toBe(2);
  });
});
