import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { newRule, patch, RULE_ID, ruleBody, ruleChart, ruleUrl, RULES, versionsUrl } from './support/coding-rules.js';

describeEachDialect('coding rules: create, read, list, change, delete', (t) => {
  it('creates a rule at version 1, enabled and last in precedence, with who made it; reads it back', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const body = {
      name: 'Coffee is meals',
      conditions: {
        record_types: ['CARD_EXPENSE_POST'],
        source_types: ['CARD'],
        vendor_name: { operator: 'EQUALS', value: 'Blue Bottle' },
        user_ids: ['cuuser_1'],
        user_emails: ['a@example.invalid'],
        amount: { currency: 'USD', min: 0, max: 50.5 },
        memo_contains: 'coffee',
        has_receipt: true,
      },
      actions: { field_values: [set(gl, 0), set(dept, 1)], memo: 'Team coffee' },
    };
    const created = await newRule(api, body);
    expect(created).toEqual({
      id: expect.stringMatching(RULE_ID),
      name: 'Coffee is meals',
      position: 0,
      enabled: true,
      status: 'ACTIVE',
      problems: [],
      version: 1,
      conditions: body.conditions,
      actions: body.actions,
      created_at: expect.stringMatching(ISO_MICROS),
      updated_at: created.created_at,
      created_by: { type: 'client', id: api.clientId },
      updated_by: { type: 'client', id: api.clientId },
    });
    expect((await api.get(ruleUrl(created.id))).body).toEqual(created);
    const second = await newRule(api, ruleBody('Uber', [set(gl, 1)], { enabled: false }));
    expect(second).toMatchObject({ position: 1, enabled: false, status: 'DISABLED' });
  });

  it('lists rules in precedence order (position, then creation), a page at a time', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const a = await newRule(api, ruleBody('A', [set(gl, 0)], { position: 5 }));
    const b = await newRule(api, ruleBody('B', [set(gl, 0)], { position: 1 }));
    const c = await newRule(api, ruleBody('C', [set(gl, 0)], { position: 5 }));
    const d = await newRule(api, ruleBody('D', [set(gl, 0)]));
    expect(d.position).toBe(6);
    const first = await api.get(RULES, { limit: '2' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.items.map((r: any) => r.id)).toEqual([b.id, a.id]);
    const next = await api.get(RULES, { limit: '2', cursor: first.body.next_cursor });
    expect(next.body.items.map((r: any) => r.id)).toEqual([c.id, d.id]);
    expect(next.body.next_cursor).toBeNull();
    expect((await api.get(RULES, { cursor: 'nope' })).body).toEqual(errorBody('INVALID_CURSOR'));
    // Another account sees none of them.
    const stranger = await t.ctx.as(['accounting.record.admin']);
    expect((await stranger.get(RULES)).body).toEqual({ items: [], has_next_page: false, next_cursor: null });
    expect((await stranger.get(ruleUrl(a.id))).status).toBe(404);
  });

  it('changes a rule as a new version, keeping every version with who made it; a stale version is 409', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('Uber', [set(gl, 1)]));
    const changed = await patch(api, ruleUrl(rule.id), { version: 1, name: 'Rides', enabled: false, position: 9 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({
      ...rule,
      name: 'Rides',
      enabled: false,
      status: 'DISABLED',
      position: 9,
      version: 2,
      updated_at: expect.stringMatching(ISO_MICROS),
    });
    expect(changed.body.updated_at > rule.updated_at).toBe(true);
    const stale = await patch(api, ruleUrl(rule.id), { version: 1, name: 'Late' });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(
      errorBody('VERSION_CONFLICT', { details: { rule_id: rule.id, expected_version: 1, current_version: 2 } }),
    );
    // Nothing that differs: the rule as it is, no new version.
    const same = await patch(api, ruleUrl(rule.id), { version: 2, name: 'Rides' });
    expect(same.body).toEqual(changed.body);
    const other = await t.ctx.as(['accounting.record.admin'], api.accountId);
    const third = await patch(other, ruleUrl(rule.id), {
      version: 2,
      conditions: { source_types: ['CARD'] },
      actions: { field_values: [set(gl, 2)] },
    });
    expect(third.body).toMatchObject({
      version: 3,
      conditions: { source_types: ['CARD'] },
      actions: { field_values: [set(gl, 2)] },
      created_by: { type: 'client', id: api.clientId },
      updated_by: { type: 'client', id: other.clientId },
    });
    const versions = await api.get(versionsUrl(rule.id));
    expect(versions.status, versions.text).toBe(200);
    expect(versions.body.items.map((v: any) => [v.version, v.change, v.name, v.changed_by.id])).toEqual([
      [1, 'CREATED', 'Rule for Uber', api.clientId],
      [2, 'UPDATED', 'Rides', api.clientId],
      [3, 'UPDATED', 'Rides', other.clientId],
    ]);
    expect(versions.body.items[0]).toEqual({
      version: 1,
      change: 'CREATED',
      name: 'Rule for Uber',
      position: 0,
      enabled: true,
      conditions: rule.conditions,
      actions: rule.actions,
      changed_at: rule.created_at,
      changed_by: { type: 'client', id: api.clientId },
    });
    expect(versions.body.next_cursor).toBeNull();
  });

  it('deletes a rule: gone from reads and lists, its versions kept with the deletion last', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('Uber', [set(gl, 1)]));
    const deleted = await api.delete(ruleUrl(rule.id));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await api.get(ruleUrl(rule.id))).body).toEqual(errorBody('NOT_FOUND', { details: { rule_id: rule.id } }));
    expect((await api.get(RULES)).body.items).toEqual([]);
    expect((await patch(api, ruleUrl(rule.id), { version: 1, name: 'x' })).status).toBe(404);
    expect((await api.delete(ruleUrl(rule.id))).status).toBe(404);
    const versions = await api.get(versionsUrl(rule.id));
    expect(versions.body.items.map((v: any) => [v.version, v.change])).toEqual([
      [1, 'CREATED'],
      [2, 'DELETED'],
    ]);
    expect((await api.get(versionsUrl('crule_unknown'))).status).toBe(404);
  });

  it('reads with the review scope; writes need accounting.record.admin', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const rule = await newRule(api, ruleBody('Uber', [set(gl, 1)]));
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    expect((await reviewer.get(ruleUrl(rule.id))).status).toBe(200);
    expect((await reviewer.get(RULES)).status).toBe(200);
    const refused = await reviewer.create(RULES, ruleBody('X', [set(gl, 0)]));
    expect(refused.status).toBe(403);
    expect(refused.body.error_code).toBe('FORBIDDEN');
    expect((await patch(reviewer, ruleUrl(rule.id), { version: 1, name: 'x' })).status).toBe(403);
    expect((await reviewer.delete(ruleUrl(rule.id))).status).toBe(403);
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    expect((await reader.get(RULES)).status).toBe(403);
  });
});
