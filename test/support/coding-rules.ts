import { expect } from 'vitest';
import type { Api } from './api.js';
import type { TestContext } from './context.js';
import { REVIEWER } from './review.js';

/** The coding rules routes (svc's own, under /internal/v1/accounting). */
export const RULES = '/internal/v1/accounting/coding-rules';
export const PREVIEW = `${RULES}/preview`;
export const APPLY = `${RULES}/apply`;
export const ruleUrl = (id: string) => `${RULES}/${id}`;
export const versionsUrl = (id: string) => `${RULES}/${id}/versions`;

/** A rule id as answered. */
export const RULE_ID = /^crule_[0-9a-z]{26}$/;

export const patch = (api: Api, url: string, body: unknown) => api.request('PATCH', url, { body });

/** A chart for rules: GL (Meals, Travel, Software) and Department (Sales, Ops), and a caller that may do it all. */
export async function ruleChart(ctx: TestContext) {
  const api = await ctx.as(REVIEWER);
  const gl = await api.newCoding('GL Account', [
    { value: '6010 Meals', remote_id: 'GL-6010' },
    { value: '6020 Travel', remote_id: 'GL-6020' },
    { value: '6030 Software', remote_id: 'GL-6030' },
  ]);
  const dept = await api.newCoding('Department', [{ value: 'Sales' }, { value: 'Ops' }]);
  const set = (coding: { field: any; values: any[] }, i: number) => ({
    field_id: coding.field.svc_id,
    svc_id: coding.values[i].svc_id,
  });
  return { api, gl, dept, set };
}

/** A rule body: vendor name contains `vendor`, setting `field_values`. */
export const ruleBody = (vendor: string, field_values: unknown[], extra: Record<string, unknown> = {}) => ({
  name: `Rule for ${vendor}`,
  conditions: { vendor_name: { operator: 'CONTAINS', value: vendor } },
  actions: { field_values },
  ...extra,
});

/** Creates a rule through the API; answers it as created. */
export async function newRule(api: Api, body: unknown): Promise<any> {
  const res = await api.create(RULES, body);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A vendor as ingestion takes it. */
export const vendor = (name: string) => ({ id: `v_${name}`, name });

/** The economic line's coding, as [field_id, svc_id] pairs. */
export const codedPairs = (record: any) =>
  record.line_items[0].accounting_field_values.map((v: any) => [v.svc_field_id, v.svc_field_value_id]);
