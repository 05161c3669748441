import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import { RULE_ID, ruleBody, ruleChart, RULES } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { svc, tempDir } from './support/processes.js';
import { coding } from './support/review.js';

const uber = { vendor: { id: 'v', name: 'Uber Trip' }, review_status: 'REVIEW' as const };
const lyft = { vendor: { id: 'v', name: 'Lyft' }, review_status: 'REVIEW' as const };

describeEachDialect('svc rules: create and apply, with a dry run first', (t) => {
  it('creates a rule from a file; --dry-run prints what apply would change and writes nothing; apply codes', async () => {
    const env = { DATABASE_URL: t.ctx.database.url };
    const { api, gl, set } = await ruleChart(t.ctx);
    const [ride, other] = await api.newRecords([uber, lyft]);
    const file = path.join(tempDir('svc-rules-'), 'rule.json');
    fs.writeFileSync(file, JSON.stringify(ruleBody('uber', [set(gl, 1)])));

    const created = await svc(['rules', 'create', '--account', api.accountId, '--file', file], env);
    expect(created.code, created.stderr).toBe(0);
    const rule = JSON.parse(created.stdout);
    expect(rule).toMatchObject({ id: expect.stringMatching(RULE_ID), name: 'Rule for uber', version: 1 });
    expect(rule.created_by).toEqual({ type: 'system', id: 'svc-cli' });
    expect((await api.get(`${RULES}/${rule.id}`)).body).toEqual(rule);

    const dry = await svc(['rules', 'apply', '--account', api.accountId, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      dry_run: true,
      records_changed: 1,
      updated_accounting_record_ids: [ride.id],
    });
    const untouched = (await api.get(`${RECORDS}/${ride.id}`)).body;
    expect([untouched.version, untouched.line_items[0].accounting_field_values]).toEqual([1, []]);

    const applied = await svc(['rules', 'apply', '--account', api.accountId, '--rule', rule.id], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toEqual({ records_changed: 1, updated_accounting_record_ids: [ride.id] });
    const coded = (await api.get(`${RECORDS}/${ride.id}`)).body;
    expect([coded.version, coded.line_items[0].accounting_field_values]).toEqual([2, [coding(gl.field, gl.values[1])]]);
    expect((await api.get(`${RECORDS}/${other.id}`)).body.version).toBe(1);
  });
});

describeEachDialect(
  'svc rules: list, and refusals',
  (t) => {
    it('lists the rules as JSON lines; bad JSON, a bad rule and an unknown rule exit 2 and write nothing', async () => {
      const env = { DATABASE_URL: t.ctx.database.url };
      const { api, gl, dept, set } = await ruleChart(t.ctx);
      const first = (await api.create(RULES, ruleBody('uber', [set(gl, 0)]))).body;
      const second = (await api.create(RULES, ruleBody('lyft', [set(dept, 1)]))).body;

      const listed = await svc(['rules', 'list', '--account', api.accountId], env);
      expect(listed.code, listed.stderr).toBe(0);
      const lines = listed.stdout.trim().split('\n');
      expect(lines.map((line) => JSON.parse(line))).toEqual((await api.get(RULES)).body.items);
      expect(lines.map((line) => JSON.parse(line).id)).toEqual([first.id, second.id]);

      const notJson = await svc(['rules', 'create', '--account', api.accountId, '--json', '{"name":'], env);
      expect([notJson.code, notJson.stderr]).toEqual([2, expect.stringContaining('--json is not JSON')]);

      // Refused by the schema (the API's 400) before the service is asked.
      const bad = await svc(
        ['rules', 'create', '--account', api.accountId, '--json', JSON.stringify({ name: 'x', conditions: {} })],
        env,
      );
      expect([bad.code, bad.stderr]).toEqual([
        2,
        expect.stringContaining('--json: The request is invalid: (body) must have required properties actions'),
      ]);

      const unknown = await svc(['rules', 'apply', '--account', api.accountId, '--rule', 'crule_nothing'], env);
      expect([unknown.code, unknown.stderr]).toEqual([
        2,
        expect.stringContaining('Coding rules crule_nothing not found'),
      ]);
      expect((await api.get(RULES)).body.items.map((r: any) => r.id)).toEqual([first.id, second.id]);

      const help = await svc(['rules', 'apply', '--help'], env);
      expect([help.code, help.stderr]).toEqual([0, '']);
      expect(help.stdout).toContain('--dry-run   runs the same apply in a transaction that is rolled back');
    });
  },
  {},
  { only: 'sqlite' },
);
