import { expect, it } from 'vitest';
import { newRule, ruleBody, RULES, versionsUrl } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { ACCOUNTS, newAccount, operator, SANDBOX } from './support/sandbox.js';

describeEachDialect(
  'coding rules in a sandbox',
  (t) => {
    it("a reset takes the account's coding rules, their versions and what they set with its records", async () => {
      const { creds, api } = await newAccount(t.ctx);
      const gl = await api.newCoding('GL Account', [{ value: '6020 Travel' }]);
      const rule = await newRule(api, ruleBody('uber', [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }]));
      await api.newRecord({ vendor: { id: 'v', name: 'Uber' } });
      const count = async (table: 'coding_rules' | 'coding_rule_versions' | 'coding_rule_line_values') =>
        (await t.ctx.db.direct.selectFrom(table).selectAll().where('account_id', '=', creds.account_id).execute())
          .length;
      expect([
        await count('coding_rules'),
        await count('coding_rule_versions'),
        await count('coding_rule_line_values'),
      ]).toEqual([1, 1, 1]);
      const reset = await operator(t.ctx).post(`${ACCOUNTS}/${creds.account_id}/reset`, {});
      expect(reset.status, reset.text).toBe(200);
      expect((await api.get(RULES)).body).toEqual({ items: [], has_next_page: false, next_cursor: null });
      expect((await api.get(versionsUrl(rule.id))).status).toBe(404);
      expect([
        await count('coding_rules'),
        await count('coding_rule_versions'),
        await count('coding_rule_line_values'),
      ]).toEqual([0, 0, 0]);
    });
  },
  SANDBOX,
);
