import { expect, it } from 'vitest';
import {
  SvcAuthError,
  SvcClient,
  SvcValidationError,
  type RecordCreate,
  type ReviewSettings,
  type ReviewSettingsRequest,
} from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive, type LiveServer } from './live-server.js';

const ALL: Scope[] = ['accounting.record.admin', 'accounting.record.review', 'fields.write', 'field_values.write'];

async function clientOf(live: LiveServer, scopes: Scope[] = ALL, accountId?: string) {
  const { clientId, clientSecret, accountId: account } = await live.credentials(scopes, accountId);
  return { client: new SvcClient({ baseUrl: live.url, clientId, clientSecret, maxRetries: 0 }), accountId: account };
}

const card = (
  merchant: string,
  line: RecordCreate['lines'] extends (infer L)[] | undefined ? L : never,
): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: { amount: 25, currency: 'USD' },
  posted_at: '2026-06-11T09:09:05Z',
  vendor: { id: `v_${merchant}`, name: merchant },
  lines: [line],
});

describeLive('SDK: review settings (auto-submit)', (s) => {
  it('reads and sets auto-submit, typed; records coding rules code in full then arrive in REVIEW', async () => {
    const { client, accountId } = await clientOf(s.live);
    const off: ReviewSettings = await client.review.reviewSettings();
    expect(off).toEqual({ auto_submit: false, updated_at: null });

    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
    const { items: values } = await client.fieldValues.create(field.svc_id, [{ value: '6010 Travel' }]);
    await client.review.setRequiredCoding([field.svc_id]);
    const body: ReviewSettingsRequest = { auto_submit: true };
    // One Idempotency-Key, one change: the retry answers the same settings.
    const on = await client.review.setReviewSettings(body, { idempotencyKey: 'settings-1' });
    expect(await client.review.setReviewSettings(body, { idempotencyKey: 'settings-1' })).toEqual(on);
    expect(on.auto_submit).toBe(true);
    expect(await client.review.reviewSettings()).toEqual(on);

    const travel = { field_id: field.svc_id, svc_id: values[0]!.svc_id };
    const rule = await client.codingRules.create({
      name: 'Uber is travel',
      conditions: { vendor_name: { operator: 'EQUALS', value: 'Uber' } },
      actions: { field_values: [travel] },
    });
    const amount = { amount: 25, currency: 'USD' };
    // Coded by the rule: moves. Sent coded, no rule: stays. Neither: stays.
    const { items } = await client.review.createRecords([
      card('Uber', { amount }),
      card('Acme', { amount, field_values: [travel] }),
      card('Acme', { amount }),
    ]);
    expect(items.map((r) => [r.review_status, r.version])).toEqual([
      ['REVIEW', 2],
      ['PREPARE', 1],
      ['PREPARE', 1],
    ]);
    const history = await client.review.history(items[0]!.id);
    expect(history.items.map((e) => [e.type, e.changes])).toEqual([
      [
        'INGESTED',
        {
          review_status: 'PREPARE',
          coded_by_rules: [{ line_id: items[0]!.line_items[0]!.id, ...travel, rule_id: rule.id, rule_version: 1 }],
        },
      ],
      ['MOVED', { review_status: { from: 'PREPARE', to: 'REVIEW' }, auto_submitted: true }],
    ]);

    // A bad body is the SDK's validation error; a reviewer reads but may not change the settings.
    // What an untyped caller might send (the types refuse it).
    const notBoolean: ReviewSettingsRequest = JSON.parse('{"auto_submit": "yes"}');
    const bad = await client.review.setReviewSettings(notBoolean).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SvcValidationError);
    expect((bad as SvcValidationError).problems).toEqual([{ path: '/auto_submit', message: expect.any(String) }]);
    const { client: reviewer } = await clientOf(s.live, ['accounting.record.review'], accountId);
    expect((await reviewer.review.reviewSettings()).auto_submit).toBe(true);
    const refused = await reviewer.review.setReviewSettings({ auto_submit: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcAuthError);
    expect((refused as SvcAuthError).status).toBe(403);
  });
});
