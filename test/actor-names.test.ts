import { expect, it } from 'vitest';
import { newRule, patch, ruleBody, ruleChart, ruleUrl, versionsUrl } from './support/coding-rules.js';
import { Browser, newUser } from './support/console.js';
import { describeEachDialect } from './support/context.js';

const AUDIT = '/internal/v1/audit-events';

describeEachDialect('names of the people who acted: the audit log and coding rules', (t) => {
  it('names each user who acted (the email they sign in with), as a record’s history does; clients keep their ids only', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const ann = await newUser(t.ctx.db, 'ACCOUNT_ADMIN', api.accountId);
    const bob = await newUser(t.ctx.db, 'ACCOUNT_ADMIN', api.accountId);
    const asAnn = await Browser.signIn(t.ctx.app, ann);
    const asBob = await Browser.signIn(t.ctx.app, bob);
    const byAnn = { type: 'user', id: ann.user_id, name: ann.email };
    const byBob = { type: 'user', id: bob.user_id, name: bob.email };

    const created = await asAnn.create('/internal/v1/accounting/coding-rules', ruleBody('Uber', [set(gl, 1)]));
    expect(created.status, created.text).toBe(200);
    expect([created.body.created_by, created.body.updated_by]).toEqual([byAnn, byAnn]);
    const changed = await patch(asBob, ruleUrl(created.body.id), { version: 1, name: 'Rides' });
    expect(changed.status, changed.text).toBe(200);
    expect([changed.body.created_by, changed.body.updated_by]).toEqual([byAnn, byBob]);
    const byClient = await newRule(api, ruleBody('Lyft', [set(gl, 1)]));
    expect(byClient.created_by).toEqual({ type: 'client', id: api.clientId });

    // The same names to every reader: the list, one rule, its versions; an API client reading them too.
    for (const reader of [api, asBob]) {
      const rule = await reader.get(ruleUrl(created.body.id));
      expect([rule.body.created_by, rule.body.updated_by]).toEqual([byAnn, byBob]);
      const list = await reader.get('/internal/v1/accounting/coding-rules');
      expect(list.body.items.map((r: any) => [r.created_by, r.updated_by])).toEqual([
        [byAnn, byBob],
        [byClient.created_by, byClient.created_by],
      ]);
      const versions = await reader.get(versionsUrl(created.body.id));
      expect(versions.body.items.map((v: any) => [v.version, v.changed_by])).toEqual([
        [1, byAnn],
        [2, byBob],
      ]);
    }

    const log = await asBob.get(AUDIT, { target_type: 'coding_rule' });
    expect(log.status, log.text).toBe(200);
    expect(log.body.items.map((e: any) => [e.action, e.actor])).toEqual([
      ['coding_rule.created', { type: 'client', id: api.clientId }],
      ['coding_rule.updated', byBob],
      ['coding_rule.created', byAnn],
    ]);
  });

  it('names no one whose id is not a user of the account: the id alone, as stored', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const ann = await newUser(t.ctx.db, 'ACCOUNT_ADMIN', api.accountId);
    const asAnn = await Browser.signIn(t.ctx.app, ann);
    const rule = await asAnn.create('/internal/v1/accounting/coding-rules', ruleBody('Uber', [set(gl, 1)]));
    expect(rule.status, rule.text).toBe(200);
    // A user of another account (as a copied or imported row could hold) and a user id that was never anyone's.
    const stranger = await newUser(t.ctx.db, 'BOOKKEEPER');
    await t.ctx.db.direct
      .updateTable('coding_rules')
      .set({ created_by_id: stranger.user_id, updated_by_id: 'usr_gone' })
      .where('rule_id', '=', rule.body.id)
      .execute();
    await t.ctx.db.direct
      .updateTable('coding_rule_versions')
      .set({ changed_by_id: 'usr_gone' })
      .where('rule_id', '=', rule.body.id)
      .execute();
    await t.ctx.db.direct
      .updateTable('audit_events')
      .set({ actor_id: stranger.user_id })
      .where('target_id', '=', rule.body.id)
      .execute();

    const read = await asAnn.get(ruleUrl(rule.body.id));
    expect([read.body.created_by, read.body.updated_by]).toEqual([
      { type: 'user', id: stranger.user_id },
      { type: 'user', id: 'usr_gone' },
    ]);
    const versions = await asAnn.get(versionsUrl(rule.body.id));
    expect(versions.body.items.map((v: any) => v.changed_by)).toEqual([{ type: 'user', id: 'usr_gone' }]);
    const log = await asAnn.get(AUDIT, { target_id: rule.body.id });
    expect(log.body.items.map((e: any) => e.actor)).toEqual([{ type: 'user', id: stranger.user_id }]);
  });
});
