import { expect, it } from 'vitest';
import { APPLY, newRule, patch, ruleBody, ruleChart, ruleUrl } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';

const AUDIT = '/internal/v1/audit-events';
const uber = { vendor: { id: 'v', name: 'Uber Trip' } };
/** The log's entries about coding rules (making the test's clients is in the log too). */
const ofRules = (log: { body: { items: any[] } }) => log.body.items.filter((e) => e.action.startsWith('coding_rule.'));

describeEachDialect('coding rules in the audit log', (t) => {
  it('records each create, change, enable/disable, delete and apply with who, what changed, and the request', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const auditor = await t.ctx.as(['audit.read'], api.accountId);
    const [record] = await api.newRecords([uber]);
    const body = ruleBody('uber', [set(gl, 1)]);
    const rule = await newRule(api, body);
    const renamed = await patch(api, ruleUrl(rule.id), {
      version: 1,
      name: 'Rides',
      actions: { field_values: [set(gl, 1), set(dept, 0)] },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const disabled = await patch(api, ruleUrl(rule.id), { version: 2, enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    // Nothing that differs: no new version, nothing in the log.
    expect((await patch(api, ruleUrl(rule.id), { version: 3, enabled: false })).status).toBe(200);
    const enabled = await patch(api, ruleUrl(rule.id), { version: 3, enabled: true });
    expect(enabled.status, enabled.text).toBe(200);
    const applied = await api.create(APPLY, { rule_ids: [rule.id], overwrite: true });
    expect(applied.body).toEqual({ records_changed: 1, updated_accounting_record_ids: [record.id] });
    const deleted = await api.delete(ruleUrl(rule.id));
    expect(deleted.status, deleted.text).toBe(200);

    const log = await auditor.get(AUDIT);
    expect(log.status, log.text).toBe(200);
    const requestIds = [applied, deleted].map((r) => r.headers['x-request-id']);
    const entry = (action: string, target: object, details: object) => ({
      id: expect.any(String),
      occurred_at: expect.stringMatching(ISO_MICROS),
      action,
      actor: { type: 'client', id: api.clientId },
      target,
      address: '127.0.0.1',
      request_id: expect.any(String),
      details,
    });
    const ruleTarget = { type: 'coding_rule', id: rule.id };
    const states = { position: 0, conditions: body.conditions };
    expect(ofRules(log)).toEqual([
      { ...entry('coding_rule.deleted', ruleTarget, { name: 'Rides', version: 5 }), request_id: requestIds[1] },
      {
        ...entry(
          'coding_rule.applied',
          { type: 'account', id: api.accountId },
          {
            rules: [{ rule_id: rule.id, version: 4 }],
            accounting_record_ids: null,
            overwrite: true,
            records_changed: 1,
          },
        ),
        request_id: requestIds[0],
      },
      entry('coding_rule.updated', ruleTarget, {
        name: 'Rides',
        version_before: 3,
        version: 4,
        changes: { enabled: { before: false, after: true } },
      }),
      entry('coding_rule.updated', ruleTarget, {
        name: 'Rides',
        version_before: 2,
        version: 3,
        changes: { enabled: { before: true, after: false } },
      }),
      entry('coding_rule.updated', ruleTarget, {
        name: 'Rides',
        version_before: 1,
        version: 2,
        changes: {
          name: { before: 'Rule for uber', after: 'Rides' },
          actions: { before: body.actions, after: { field_values: [set(gl, 1), set(dept, 0)] } },
        },
      }),
      entry('coding_rule.created', ruleTarget, {
        version: 1,
        name: 'Rule for uber',
        enabled: true,
        actions: body.actions,
        ...states,
      }),
    ]);
    const filtered = await auditor.get(AUDIT, { target_type: 'coding_rule', 'action[]': 'coding_rule.created' });
    expect(filtered.body.items.map((e: any) => e.action)).toEqual(['coding_rule.created']);
  });

  it('records nothing of a refused change or apply: the entry commits with the change or not at all', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const auditor = await t.ctx.as(['audit.read'], api.accountId);
    const rule = await newRule(api, ruleBody('uber', [set(gl, 1)], { enabled: false }));
    expect((await patch(api, ruleUrl(rule.id), { version: 7, name: 'x' })).status).toBe(409);
    expect((await api.create(APPLY, { rule_ids: [rule.id] })).status).toBe(400);
    expect((await api.create(APPLY, { accounting_record_ids: ['accr_nope'] })).status).toBe(404);
    const log = await auditor.get(AUDIT);
    expect(ofRules(log).map((e: any) => e.action)).toEqual(['coding_rule.created']);
    // Another account's auditor sees none of it.
    const stranger = await t.ctx.as(['audit.read']);
    expect(ofRules(await stranger.get(AUDIT))).toEqual([]);
  });
});
