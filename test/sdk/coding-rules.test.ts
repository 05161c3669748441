import { expect, it } from 'vitest';
import {
  SvcApiError,
  SvcClient,
  SvcConflictError,
  SvcNotFoundError,
  type CodingRule,
  type CodingRuleCreateRequest,
  type CodingRulePreview,
  type CodingRulesApplied,
  type RecordCreate,
} from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive, type LiveServer } from './live-server.js';

const ALL: Scope[] = [
  'accounting.record.admin',
  'accounting.record.review',
  'accounting.record.read',
  'fields.write',
  'field_values.write',
];

async function clientOf(live: LiveServer) {
  const { clientId, clientSecret } = await live.credentials(ALL);
  return new SvcClient({ baseUrl: live.url, clientId, clientSecret, maxRetries: 0 });
}

/** The SvcApiError a call fails with (and a failure of the test when it does not fail so). */
async function failure(call: Promise<unknown>): Promise<SvcApiError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof SvcApiError)) throw error;
  return error;
}

const card = (vendor: string): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: { amount: 25, currency: 'USD' },
  posted_at: '2026-06-11T09:09:05Z',
  review_status: 'REVIEW',
  vendor: { id: `v_${vendor}`, name: vendor },
});

describeLive('SDK: coding rules', (s) => {
  it('creates, previews, applies, lists, versions, updates (409 on a stale version) and deletes rules, typed', async () => {
    const client = await clientOf(s.live);
    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
    const { items: values } = await client.fieldValues.create(field.svc_id, [
      { value: '6010 Meals', remote_id: 'GL-6010' },
      { value: '6020 Travel', remote_id: 'GL-6020' },
    ]);
    const { items: records } = await client.review.createRecords([card('Uber Trip'), card('Lyft')]);
    const travel = { field_id: field.svc_id, svc_id: values[1]!.svc_id };
    const body: CodingRuleCreateRequest = {
      name: 'Rides are travel',
      conditions: { vendor_name: { operator: 'CONTAINS', value: 'uber' } },
      actions: { field_values: [travel] },
    };

    const preview: CodingRulePreview = await client.codingRules.preview({
      rule: { conditions: body.conditions, actions: body.actions },
    });
    expect(preview.records_changed).toBe(1);
    expect(preview.sample.map((r) => [r.accounting_record_id, r.version])).toEqual([[records[0]!.id, 1]]);
    expect(preview.sample[0]!.lines[0]!.field_values).toEqual([
      { field_id: field.svc_id, before: null, after: { svc_id: values[1]!.svc_id, value: '6020 Travel' } },
    ]);

    // One Idempotency-Key, one rule: the write retried with it answers the same rule.
    const rule: CodingRule = await client.codingRules.create(body, { idempotencyKey: 'rule-1' });
    expect(await client.codingRules.create(body, { idempotencyKey: 'rule-1' })).toEqual(rule);
    expect([rule.name, rule.version, rule.enabled, rule.status]).toEqual(['Rides are travel', 1, true, 'ACTIVE']);
    const second = await client.codingRules.create({ ...body, name: 'Second', enabled: false });
    expect(await client.codingRules.get(rule.id)).toEqual(rule);

    const applied: CodingRulesApplied = await client.codingRules.apply({ rule_ids: [rule.id] });
    expect(applied).toEqual({ records_changed: 1, updated_accounting_record_ids: [records[0]!.id] });
    const coded = await client.accountingRecords.get(records[0]!.id);
    expect(coded.version).toBe(2);
    expect(coded.line_items[0]!.accounting_field_values.map((v) => v.svc_field_value_id)).toEqual([travel.svc_id]);
    // Nothing more to do: applied again, it changes nothing.
    expect(await client.codingRules.apply()).toEqual({ records_changed: 0, updated_accounting_record_ids: [] });

    const page = await client.codingRules.list({ limit: 1 });
    expect([page.items.map((r) => r.id), page.has_next_page]).toEqual([[rule.id], true]);
    const all: string[] = [];
    for await (const r of client.codingRules.listAll({ limit: 1 })) all.push(r.id);
    expect(all).toEqual([rule.id, second.id]);

    const updated = await client.codingRules.update(rule.id, { version: 1, name: 'Rides' });
    expect([updated.name, updated.version]).toEqual(['Rides', 2]);
    const stale = await failure(client.codingRules.update(rule.id, { version: 1, name: 'Late' }));
    expect(stale).toBeInstanceOf(SvcConflictError);
    expect([stale.status, stale.error_code]).toEqual([409, 'VERSION_CONFLICT']);
    const versions = await client.codingRules.versions(rule.id);
    expect(versions.items.map((v) => [v.version, v.change, v.name])).toEqual([
      [1, 'CREATED', 'Rides are travel'],
      [2, 'UPDATED', 'Rides'],
    ]);

    expect(await client.codingRules.delete(rule.id)).toEqual({});
    const gone = await failure(client.codingRules.get(rule.id));
    expect(gone).toBeInstanceOf(SvcNotFoundError);
    expect(gone.error_code).toBe('NOT_FOUND');
    const kept = [];
    for await (const v of client.codingRules.versionsAll(rule.id)) kept.push(v.change);
    expect(kept).toEqual(['CREATED', 'UPDATED', 'DELETED']);
  });
});
