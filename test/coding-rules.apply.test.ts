import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import { APPLY, codedPairs, newRule, patch, ruleBody, ruleChart, ruleUrl } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { codingUrl, coding, historyUrl, usd } from './support/review.js';
import { storedRecord } from './support/stored.js';

const uber = { vendor: { id: 'v', name: 'Uber Trip' } };

describeEachDialect('coding rules: applied on demand', (t) => {
  it('codes the records under review, each a new version with a CODED_BY_RULES event; never a value a person set', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const [prepare, review, ready, person, lyft] = await api.newRecords([
      uber,
      { ...uber, review_status: 'REVIEW' },
      { ...uber, review_status: 'READY_FOR_EXPORT' },
      { ...uber, review_status: 'REVIEW' },
      { vendor: { id: 'v', name: 'Lyft' } },
    ]);
    const coded = await api.post(codingUrl(person.id), {
      version: 1,
      lines: [{ line_id: person.line_items[0].id, field_values: [set(gl, 0)] }],
    });
    expect(coded.status, coded.text).toBe(200);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1), set(dept, 0)]));
    const res = await api.create(APPLY, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ records_changed: 3, updated_accounting_record_ids: [prepare.id, review.id, person.id] });

    const now = (await api.get(`${RECORDS}/${prepare.id}`)).body;
    expect(now.version).toBe(2);
    expect(now.updated_at > prepare.updated_at).toBe(true);
    const line = prepare.line_items[0];
    expect(now.line_items[0].accounting_field_values).toEqual([
      coding(gl.field, gl.values[1]),
      coding(dept.field, dept.values[0]),
    ]);
    const events = (await api.get(historyUrl(prepare.id))).body.items;
    expect(events.map((e: any) => [e.version, e.type])).toEqual([
      [1, 'INGESTED'],
      [2, 'CODED_BY_RULES'],
    ]);
    expect(events[1].changes).toEqual({
      lines: [{ line_id: line.id, before: [], after: now.line_items[0].accounting_field_values }],
      memos: [],
      coded_by_rules: [
        { line_id: line.id, ...set(gl, 1), rule_id: rule.id, rule_version: 1 },
        { line_id: line.id, ...set(dept, 0), rule_id: rule.id, rule_version: 1 },
      ],
    });
    expect(await storedRecord(t.ctx, api.accountId, prepare.id)).toMatchObject({ version: 2, uncoded_lines: 0 });
    // The person's GL stays; the Department they left empty is filled.
    const personNow = (await api.get(`${RECORDS}/${person.id}`)).body;
    expect(codedPairs(personNow)).toEqual([
      [gl.field.svc_id, gl.values[0].svc_id],
      [dept.field.svc_id, dept.values[0].svc_id],
    ]);
    expect(personNow.version).toBe(3);
    expect((await api.get(`${RECORDS}/${ready.id}`)).body).toEqual(ready);
    expect((await api.get(`${RECORDS}/${lyft.id}`)).body).toEqual(lyft);
    // Nothing left to do: nothing changes.
    expect((await api.create(APPLY, {})).body).toEqual({ records_changed: 0, updated_accounting_record_ids: [] });
    expect((await api.get(`${RECORDS}/${prepare.id}`)).body.version).toBe(2);
  });

  it("a changed rule replaces what rules set, not a person's value; overwrite replaces that too", async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1)]));
    const [byRule, byPerson] = await api.newRecords([uber, uber]);
    expect(codedPairs(byRule)).toEqual([[gl.field.svc_id, gl.values[1].svc_id]]);
    const coded = await api.post(codingUrl(byPerson.id), {
      version: 1,
      lines: [{ line_id: byPerson.line_items[0].id, field_values: [set(gl, 0)] }],
    });
    expect(coded.status, coded.text).toBe(200);
    expect((await patch(api, ruleUrl(rule.id), { version: 1, actions: { field_values: [set(gl, 2)] } })).status).toBe(
      200,
    );
    const res = await api.create(APPLY, { rule_ids: [rule.id] });
    expect(res.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [byRule.id] });
    const now = (await api.get(`${RECORDS}/${byRule.id}`)).body;
    expect(codedPairs(now)).toEqual([[gl.field.svc_id, gl.values[2].svc_id]]);
    const last = (await api.get(historyUrl(byRule.id))).body.items.at(-1);
    expect(last.changes.coded_by_rules).toEqual([
      { line_id: now.line_items[0].id, ...set(gl, 2), rule_id: rule.id, rule_version: 2 },
    ]);
    expect(last.changes.lines[0].before).toEqual([coding(gl.field, gl.values[1])]);
    expect(codedPairs((await api.get(`${RECORDS}/${byPerson.id}`)).body)).toEqual([
      [gl.field.svc_id, gl.values[0].svc_id],
    ]);
    const forced = await api.create(APPLY, { overwrite: true, accounting_record_ids: [byPerson.id] });
    expect(forced.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [byPerson.id] });
    expect(codedPairs((await api.get(`${RECORDS}/${byPerson.id}`)).body)).toEqual([
      [gl.field.svc_id, gl.values[2].svc_id],
    ]);
  });

  it('sets the memo of lines that have none; a memo already there stays unless overwrite', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const [record] = await api.newRecords([
      { ...uber, amount: usd(30), lines: [{ amount: usd(10) }, { amount: usd(20), memo: 'mine' }] },
    ]);
    const rule = await newRule(api, { ...ruleBody('uber', [set(gl, 1)]), actions: { field_values: [], memo: 'Ride' } });
    expect((await api.create(APPLY, {})).body.records_changed).toBe(1);
    const now = (await api.get(`${RECORDS}/${record.id}`)).body;
    expect(now.line_items.map((l: any) => l.memo)).toEqual(['Ride', 'mine', null]);
    const [l0] = record.line_items;
    expect((await api.get(historyUrl(record.id))).body.items.at(-1).changes).toEqual({
      lines: [],
      memos: [{ line_id: l0.id, before: null, after: 'Ride' }],
      coded_by_rules: [{ line_id: l0.id, memo: 'Ride', rule_id: rule.id, rule_version: 1 }],
    });
    await api.create(APPLY, { overwrite: true });
    const forced = (await api.get(`${RECORDS}/${record.id}`)).body;
    expect(forced.line_items.map((l: any) => l.memo)).toEqual(['Ride', 'Ride', null]);
    expect(forced.version).toBe(3);
  });

  it('refuses unknown rules and records (404), disabled or broken rules (400), changing nothing', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const record = await api.newRecord(uber);
    const disabled = await newRule(api, ruleBody('uber', [set(gl, 1)], { enabled: false }));
    const broken = await newRule(api, ruleBody('uber', [set(dept, 1)]));
    await api.delete(`/v1/fields/${dept.field.svc_id}/values`, { items: [{ svc_id: dept.values[1].svc_id }] });
    const unknown = await api.create(APPLY, { rule_ids: ['crule_nope'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(errorBody('NOT_FOUND', { details: { not_found_rule_ids: ['crule_nope'] } }));
    const refused = await api.create(APPLY, { rule_ids: [disabled.id, broken.id] });
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors).toEqual([
      { path: '/rule_ids/0', message: `names rule ${disabled.id}, which is DISABLED` },
      { path: '/rule_ids/1', message: `names rule ${broken.id}, which is BROKEN` },
    ]);
    const stranger = await t.ctx.as(['accounting.record.admin']);
    const foreign = await stranger.create(APPLY, { accounting_record_ids: [record.id] });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(errorBody('NOT_FOUND', { details: { not_found_accounting_record_ids: [record.id] } }));
    expect((await stranger.create(APPLY, { rule_ids: [disabled.id] })).status).toBe(404);
    // The broken rule applies nowhere when every rule is applied.
    expect((await api.create(APPLY, {})).body.records_changed).toBe(0);
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
  });
});
